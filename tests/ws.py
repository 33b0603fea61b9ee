"""An in-process WebSocket client for ASGI applications (Channels' own communicator lives in
``channels.testing``, whose package import needs daphne, which this project does not use)."""

from __future__ import annotations

from typing import Any

from asgiref.testing import ApplicationCommunicator


class WebsocketCommunicator(ApplicationCommunicator):
    """Connect, send and receive frames, disconnect: the ASGI ``websocket`` messages."""

    def __init__(self, application: Any, path: str,
                 headers: list[tuple[bytes, bytes]] | None = None) -> None:
        scope = {"type": "websocket", "asgi": {"version": "3.0", "spec_version": "2.3"},
                 "path": path, "raw_path": path.encode(), "query_string": b"",
                 "headers": headers or [], "subprotocols": [],
                 "client": ("127.0.0.1", 50000), "server": ("testserver", 80)}
        super().__init__(application, scope)

    async def connect(self, timeout: float = 1) -> tuple[bool, int | None]:
        """(accepted, close code when refused)."""
        await self.send_input({"type": "websocket.connect"})
        response = await self.receive_output(timeout)
        if response["type"] == "websocket.close":
            return False, response.get("code", 1000)
        return response["type"] == "websocket.accept", None

    async def send_to(self, text_data: str | None = None, bytes_data: bytes | None = None
                      ) -> None:
        message: dict[str, Any] = {"type": "websocket.receive"}
        if text_data is not None:
            message["text"] = text_data
        else:
            message["bytes"] = bytes_data
        await self.send_input(message)

    async def receive_from(self, timeout: float = 1) -> str:
        response = await self.receive_output(timeout)
        if response["type"] != "websocket.send":
            raise AssertionError(f"expected a frame, got {response}")
        return response.get("text") or response["bytes"].decode()

    async def pending(self, settle: float = 0.3) -> list[str]:
        """Every frame sent within ``settle`` seconds (asgiref's receive_output cancels the
        application when it times out, so the queue is drained without waiting on it)."""
        import asyncio

        await asyncio.sleep(settle)
        out = []
        while not self.output_queue.empty():
            message = self.output_queue.get_nowait()
            if message["type"] != "websocket.send":
                raise AssertionError(f"expected a frame, got {message}")
            out.append(message.get("text") or message["bytes"].decode())
        return out

    async def disconnect(self, code: int = 1000, timeout: float = 1) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": code})
        await self.wait(timeout)

"""An in-process WebSocket client for ASGI applications (Channels' own communicator lives in
``channels.testing``, whose package import needs daphne, which this project does not use)."""

from __future__ import annotations

import json
from typing import Any

from asgiref.testing import ApplicationCommunicator


class WebsocketCommunicator(ApplicationCommunicator):
    """Connect, send and receive frames, disconnect: the ASGI ``websocket`` messages."""

    def __init__(self, application: Any, path: str,
                 headers: list[tuple[bytes, bytes]] | None = None,
                 http_response: bool = False, subprotocols: list[str] | None = None) -> None:
        scope = {"type": "websocket", "asgi": {"version": "3.0", "spec_version": "2.3"},
                 "path": path, "raw_path": path.encode(), "query_string": b"",
                 "headers": headers or [], "subprotocols": subprotocols or [],
                 "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
                 # uvicorn's: a refused handshake answered with an HTTP response
                 "extensions": {"websocket.http.response": {}} if http_response else {}}
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


def client_frame(payload: bytes, opcode: int = 0x1, compressed: bool = False) -> bytes:
    """One unfragmented frame as a client sends it (masked); ``compressed`` sets RSV1, the
    permessage-deflate bit, for a payload deflated by the caller."""
    import os

    size = len(payload)
    first = 0x80 | opcode | (0x40 if compressed else 0)
    if size < 126:
        head = bytes([first, 0x80 | size])
    elif size < 1 << 16:
        head = bytes([first, 0x80 | 126]) + size.to_bytes(2, "big")
    else:
        head = bytes([first, 0x80 | 127]) + size.to_bytes(8, "big")
    mask = os.urandom(4)
    key = int.from_bytes((mask * (size // 4 + 1))[:size], "big")
    return head + mask + (int.from_bytes(payload, "big") ^ key).to_bytes(size, "big")


def frame_header(buffer: bytes | bytearray) -> tuple[int, int, int] | None:
    """The first server frame in ``buffer`` (unmasked): (opcode, header length, payload
    length), or None until the whole frame is there."""
    if len(buffer) < 2:
        return None
    length, at = buffer[1] & 0x7F, 2
    if length == 126:
        if len(buffer) < 4:
            return None
        length, at = int.from_bytes(buffer[2:4], "big"), 4
    elif length == 127:
        if len(buffer) < 10:
            return None
        length, at = int.from_bytes(buffer[2:10], "big"), 10
    if len(buffer) < at + length:
        return None
    return buffer[0] & 0x0F, at, length


class RawWebSocket:
    """A WebSocket client on a plain socket, for what a library client will not do: send a
    precompressed frame (a decompression bomb), or never read. Blocking; one per test."""

    def __init__(self, host: str, port: int, path: str = "/v2/stream",
                 headers: dict[str, str] | None = None, deflate: bool = False,
                 receive_buffer: int | None = None) -> None:
        import base64
        import os
        import socket

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:  # before connecting: the window is agreed then
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(10)
        self.sock.connect((host, port))
        headers = {"Host": f"{host}:{port}", **(headers or {})}
        lines = [f"GET {path} HTTP/1.1", "Upgrade: websocket",
                 "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
                 "Sec-WebSocket-Version: 13"]
        if deflate:
            lines.append("Sec-WebSocket-Extensions: permessage-deflate")
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                break
            head += chunk
        self.status = int(head.split(b" ", 2)[1]) if head else 0
        self.head = head.decode("latin-1")
        self.buffer = b""

    def refusal(self) -> dict[str, Any]:
        """A refused handshake's JSON body."""
        length = next(int(line.split(":", 1)[1]) for line in self.head.split("\r\n")
                      if line.lower().startswith("content-length:"))
        body = b""
        while len(body) < length:
            chunk = self.sock.recv(length - len(body))
            if not chunk:
                break
            body += chunk
        return json.loads(body)

    def send(self, payload: bytes, opcode: int = 0x1, compressed: bool = False) -> None:
        self.sock.sendall(client_frame(payload, opcode, compressed))

    def recv(self) -> tuple[int, bytes]:
        """The next frame (opcode, payload); (0x8, close payload) when the server closes,
        (-1, b"") when the connection ends without one."""
        while (frame := frame_header(self.buffer)) is None:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                return -1, b""
            self.buffer += chunk
        opcode, at, length = frame
        payload = self.buffer[at:at + length]
        self.buffer = self.buffer[at + length:]
        return opcode, payload

    def close_code(self) -> int | None:
        """Read until the server's close frame; its code (None: closed without one)."""
        while True:
            opcode, payload = self.recv()
            if opcode == 0x8:
                return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            if opcode == -1:
                return None

    def close(self) -> None:
        self.sock.close()

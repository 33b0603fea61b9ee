"""A client-side text/event-stream parser, shared by the stream tests and bench/stream_load.py."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SseBlock:
    event: str | None = None
    data: str | None = None
    retry: str | None = None
    comments: list[str] = field(default_factory=list)


class SseParser:
    """Incremental text/event-stream parser: feed decoded text, get complete blocks (a block
    ends at a blank line; CRLF, CR and LF line ends, also split across feeds)."""

    def __init__(self) -> None:
        self._buf = ""
        self._cr = ""

    def feed(self, text: str) -> list[SseBlock]:
        text = self._cr + text
        self._cr = "\r" if text.endswith("\r") else ""
        if self._cr:
            text = text[:-1]
        self._buf += text.replace("\r\n", "\n").replace("\r", "\n")
        *complete, self._buf = self._buf.split("\n\n")
        return [parse_block(raw) for raw in complete if raw.strip("\n")]


def parse_block(raw: str) -> SseBlock:
    block = SseBlock()
    data: list[str] = []
    for line in raw.strip("\n").split("\n"):
        if line.startswith(":"):
            block.comments.append(line[1:].strip())
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "event":
            block.event = value
        elif name == "retry":
            block.retry = value
    if data:
        block.data = "\n".join(data)
    return block

"""Reading XML from upstreams without any of its dangerous constructs, as it streams.

EDGAR's documents (ownership forms, 13F information tables, N-PORT reports) are plain XML:
no document type declaration, no entities. :func:`parse` runs expat over a document with
a DOCTYPE, entity declarations and external entity references refused (:class:`Refused`
at their start), so no entity is ever declared, expanded or fetched: the billion laughs
and external-entity attacks cannot start. ``defusedxml`` is not a dependency; this is the
part of it these readers need. The document is fed in chunks, so a large one is never
copied whole into a parser buffer; the handlers are the caller's (a streaming reader's
own, or an ElementTree builder's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn
from xml.parsers import expat

ExpatError = expat.ExpatError
CHUNK = 1 << 20


class Refused(Exception):
    """A document type declaration or an entity: never read here."""


def _refuse(*_args: Any) -> NoReturn:
    raise Refused("a DOCTYPE or entity declaration")


def parse(content: bytes, start: Callable[[str, dict[str, str]], Any],
          end: Callable[[str], Any], text: Callable[[str], Any], *,
          namespace_separator: str | None = None, chunk: int = CHUNK) -> None:
    """Run expat over ``content`` with the handlers (element names as written, or
    ``uri{separator}local`` with ``namespace_separator``; character data buffered, so a
    text node comes in one call where it fits the buffer). Raises :class:`Refused` for a
    DOCTYPE or an entity, :class:`ExpatError` for a document that is not well-formed, and
    whatever a handler raises."""
    parser = expat.ParserCreate(namespace_separator=namespace_separator)
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    parser.UnparsedEntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    view = memoryview(content)
    for offset in range(0, len(view), chunk):
        parser.Parse(view[offset:offset + chunk], False)
    parser.Parse(b"", True)


def error_text(error: ExpatError) -> str:
    """What is wrong with a document, and where: ``mismatched tag, line 3``."""
    return f"{expat.ErrorString(error.code)}, line {error.lineno}"

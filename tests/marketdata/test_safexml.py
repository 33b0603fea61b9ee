"""marketdata.safexml: the one expat reader the EDGAR document parsers share."""

from __future__ import annotations

import pytest

from marketdata import safexml

BOMB = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>\n'
        b"<lolz>&lol2;</lolz>")
EXTERNAL = (b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b"<r>&x;</r>")


def events(content: bytes, **options) -> list[tuple]:
    seen: list[tuple] = []
    safexml.parse(content, lambda name, attributes: seen.append(("start", name, attributes)),
                  lambda name: seen.append(("end", name)),
                  lambda text: seen.append(("text", text)), **options)
    return seen


def test_elements_and_text_in_order_across_chunks():
    doc = b"<a x='1'><b>" + b"y" * 50 + b"</b><c/></a>"
    expected = [("start", "a", {"x": "1"}), ("start", "b", {}), ("text", "y" * 50),
                ("end", "b"), ("start", "c", {}), ("end", "c"), ("end", "a")]
    assert events(doc) == expected
    assert [e for e in events(doc, chunk=3) if e[0] != "text"] == \
        [e for e in expected if e[0] != "text"]
    assert "".join(e[1] for e in events(doc, chunk=3) if e[0] == "text") == "y" * 50


def test_namespaces_with_a_separator():
    doc = b'<t xmlns="urn:x"><ns1:v xmlns:ns1="urn:y">1</ns1:v></t>'
    names = [e[1] for e in events(doc, namespace_separator="}") if e[0] == "start"]
    assert names == ["urn:x}t", "urn:y}v"]


@pytest.mark.parametrize("doc", [BOMB, EXTERNAL, b'<!DOCTYPE r SYSTEM "http://x/r.dtd"><r/>'])
def test_a_doctype_or_entity_is_refused_before_any_expansion(doc):
    with pytest.raises(safexml.Refused):
        events(doc)


@pytest.mark.parametrize("doc", [b"<a><b></a>", b"", b"not xml", b"<a/><b/>"])
def test_malformed_documents(doc):
    with pytest.raises(safexml.ExpatError) as caught:
        events(doc)
    assert ", line " in safexml.error_text(caught.value)

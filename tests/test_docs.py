"""The documentation's shape (issue 39, item 3): the README starts with its two commands, the
API notes have one heading per topic and a table of contents that finds them, every relative
link in README.md and docs/*.md resolves, and the licences of the dependencies are listed."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
NOTES = ROOT / "docs" / "api-notes.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]

# The topics a reader must find from the API notes' contents (issue 39).
TOPICS = ["CSV", "Paging", "Units", "Sandbox", "Errors", "Caching", "Streams", "MCP",
          "Generated clients", "Versions", "Root URL", "Order of lists"]

LINK = re.compile(r"(?<!\\)\[([^\]]*)\]\(([^)\s]+)\)")


def prose(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title.strip())
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def headings(path: Path) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(2).strip()) for line in prose(path.read_text())
            if (m := re.match(r"(#{1,6}) (.+)", line))]


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, title in headings(path):
        base = slug(title)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[tuple[str, str]]:
    out = []
    for line in prose(path.read_text()):
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        out += LINK.findall(line)
    return out


def test_readme_starts_with_the_two_commands():
    head = README.read_text().splitlines()[:60]
    text = "\n".join(head)
    for command in ("make run", "make test", "make quick"):
        assert command in text, f"{command!r} is not in the README's first 60 lines"
    assert any(line.startswith("## Two commands") for line in head)


def contents(path: Path) -> list[tuple[str, str]]:
    """The links of the list under '## Contents'."""
    lines = prose(path.read_text())
    start = lines.index("## Contents")
    toc = []
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        if m := re.match(r"\s*- \[([^\]]+)\]\(#([^)]+)\)", line):
            toc.append((m.group(1), m.group(2)))
    return toc


def test_api_notes_have_a_table_of_contents_with_one_heading_per_topic():
    toc = contents(NOTES)
    assert len(toc) >= 20
    targets = anchors(NOTES)
    for title, anchor in toc:
        assert anchor in targets, f"contents entry {title!r} points to no heading (#{anchor})"
    listed = {anchor for _, anchor in toc}
    for level, title in headings(NOTES):
        if level in (2, 3) and title != "Contents":
            assert slug(title) in listed, f"heading {title!r} is not in the contents"


@pytest.mark.parametrize("topic", TOPICS)
def test_every_topic_is_found_from_the_contents(topic):
    titles = [title.lower() for title, _ in contents(NOTES)]
    assert any(topic.lower() in title for title in titles), topic


def test_relative_links_resolve():
    broken = []
    for doc in DOCS:
        for label, target in links(doc):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            dest = (doc.parent / path).resolve() if path else doc
            if not dest.exists():
                broken.append(f"{doc.relative_to(ROOT)}: [{label}]({target}): no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{doc.relative_to(ROOT)}: [{label}]({target}): no such heading")
    assert not broken, "\n".join(broken)


def pinned(path: Path) -> list[tuple[str, str]]:
    pins = []
    for line in path.read_text().splitlines():
        if m := re.match(r"([A-Za-z0-9_.\-]+)(\[[^\]]*\])?==([^\s#;]+)", line):
            pins.append((m.group(1) + (m.group(2) or ""), m.group(3)))
    return pins


def test_license_and_every_dependency_licence_are_listed():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    text = README.read_text()
    section = text[text.index("\n## Dependencies"):]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 4:
            rows[cells[0].lower()] = cells
    for req in ("base.txt", "dev.txt"):
        for name, version in pinned(ROOT / "requirements" / req):
            row = rows.get(name.lower())
            assert row, f"{name} ({req}) has no row in the README's Dependencies"
            assert row[1] == version, f"{name}: the README says {row[1]}, {req} pins {version}"
            assert row[2], f"{name} has no licence"


# Each registered provider as the code map and the request path name it.
PROVIDER_NAMES = {
    "yahoo": "Yahoo", "fred": "FRED", "treasury": "Treasury", "fmp": "FMP",
    "algolia": "Algolia", "gdelt": "GDELT", "frankfurter": "Frankfurter", "cftc": "CFTC",
    "sec": "SEC", "wikipedia": "Wikipedia", "tiingo": "Tiingo", "alphavantage": "Alpha Vantage",
    "coingecko": "CoinGecko", "alternative": "alternative.me", "feeds": "RSS/Atom feeds",
    "finra": "FINRA",
}


def test_the_provider_lists_name_every_registered_provider():
    from marketdata.providers.registry import PROVIDERS

    assert set(PROVIDER_NAMES) == set(PROVIDERS)  # a new provider is named here, and below
    code_map = next(line for line in README.read_text().splitlines()
                    if line.startswith("| `marketdata/providers/` |"))
    architecture = (ROOT / "docs" / "architecture.md").read_text()
    path = architecture[architecture.index("-> Yahoo"):architecture.index("## The layers")]
    for name in PROVIDER_NAMES.values():
        assert name in code_map, name
        assert name in " ".join(path.split()), name

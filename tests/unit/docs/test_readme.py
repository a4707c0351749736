"""The README is a page a newcomer reads in five minutes (at most 200 lines); the reference is in
docs/, and every relative link of the README and of the docs pages names a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
MAX_LINES = 200
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
"""A Markdown link or image, ``[text](target)`` or ``![alt](target "title")``: its target."""
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def relative_targets(page: Path) -> list[str]:
    """The link targets of ``page`` outside code blocks that are neither URLs nor in-page anchors,
    without their ``#fragment``."""
    text = FENCE.sub("", page.read_text())
    targets = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
            continue  # http(s)://, mailto: and the like; an anchor of this page
        targets.append(target.split("#", 1)[0])
    return targets


def test_the_readme_is_short() -> None:
    lines = len(README.read_text().splitlines())
    assert lines <= MAX_LINES, f"README.md has {lines} lines; move reference material to docs/"


def test_the_readme_links_every_docs_page() -> None:
    linked = {(ROOT / target).resolve() for target in relative_targets(README)}
    unlinked = [p.name for p in PAGES[1:] if p.resolve() not in linked]
    assert unlinked == [], f"docs pages the README does not link: {unlinked}"


def test_every_relative_link_names_a_file_that_exists() -> None:
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in PAGES
        for target in relative_targets(page)
        if not (page.parent / target).exists()
    ]
    assert broken == []


def test_the_link_parser_finds_links_and_skips_urls_and_anchors(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "[a](docs/a.md#part) ![b](b.png) [c](https://example.com) [d](#here)\n"
        "```\n[e](in-a-code-block.md)\n```\n"
    )
    assert relative_targets(page) == ["docs/a.md", "b.png"]


def test_the_readme_names_every_mart_and_links_the_stream_table() -> None:
    """The README's table of what lands in the warehouse lists the marts' YAML, in their order
    (docs/models.md holds the details), and sends the reader to docs/streams.md for the streams,
    whose table follows the registry (``tests/unit/sources/test_registry.py``): adding a stream
    does not touch the README."""
    from pipelines.model_docs import mart_docs

    marts = [doc.name for doc in mart_docs()]
    text = README.read_text()
    marts_row = f"| `marts` ({len(marts)} marts) | " + ", ".join(f"`{name}`" for name in marts)
    assert marts_row + " |" in text, "paste into README.md:\n" + marts_row + " |"
    streams_row = next(line for line in text.splitlines() if line.startswith("| `connecteam`"))
    assert "(docs/streams.md#streams)" in streams_row

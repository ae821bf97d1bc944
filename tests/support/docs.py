"""The code blocks of the README and the documentation pages (``docs/pages/``).

The docs' examples are tests: the test modules find the blocks they run here, by a
marker the block contains, so a block that moves between pages is still found, and one
that disappears fails its test instead of being skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = ROOT / "docs" / "pages"
_FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)
_TITLE = re.compile(r'title="([^"]+)"')


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its language, its ``title="..."`` and text."""

    path: Path
    line: int
    lang: str
    title: str | None
    text: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def generated_pages() -> list[Path]:
    """The dated benchmark pages, written by the bench scripts (``bench/bench_page.py``)."""
    return sorted(p for p in (PAGES / "benchmarks").glob("*.md") if p.name != "index.md")


def doc_files(generated: bool = True) -> list[Path]:
    """The README and every documentation page (``generated``: the bench pages too)."""
    skip = set() if generated else set(generated_pages())
    return [README, *(p for p in sorted(PAGES.rglob("*.md")) if p not in skip)]


def blocks_of(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        title = _TITLE.search(match.group(2))
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(path, line, match.group(1), title and title.group(1), match.group(3)))
    return found


def all_blocks(lang: str | None = None) -> list[Block]:
    """Every block of the README and the pages, of one language when given."""
    return [b for p in doc_files() for b in blocks_of(p) if lang is None or b.lang == lang]


def blocks_with(marker: str, lang: str = "python") -> list[Block]:
    """The blocks of ``lang`` that contain ``marker``; at least one, or the test fails."""
    found = [b for b in all_blocks(lang) if marker in b.text]
    assert found, f"no {lang} block of the docs contains {marker!r}"
    return found


def block_with(marker: str, lang: str = "python") -> str:
    """The text of the one block of ``lang`` that contains ``marker``."""
    found = blocks_with(marker, lang)
    assert len(found) == 1, [b.where for b in found]
    return found[0].text


def doc_text(generated: bool = True) -> str:
    """The README and every page, one after another."""
    return "\n".join(p.read_text(encoding="utf-8") for p in doc_files(generated))

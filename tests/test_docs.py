"""The README stays a page a newcomer reads (issue 36): short, with commands that exist, and links that
lead somewhere; the behaviour lives in docs/guide.md, one section per topic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["README.md", "docs/guide.md", "docs/architecture.md", "docs/idioms.md", "docs/coverage.md", "docs/lint.md",
        "docs/dali-facts.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", text, flags=re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


def test_readme_is_short_and_its_two_commands_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 170
    head = readme.split("## ", 1)[0]
    for script in ("scripts/demo.sh", "scripts/test.sh"):
        assert f"bash {script}" in head and (ROOT / script).is_file()
    assert 'scripts/test.sh -m "not slow"' in readme  # the fast subset, for the inner loop


@pytest.mark.parametrize("doc", DOCS)
def test_every_relative_link_leads_somewhere(doc):
    path = ROOT / doc
    text = path.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text(encoding="utf-8")):
            broken.append(target)
    assert broken == []


def test_the_guide_has_one_section_per_topic_each_with_a_before_and_after():
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", guide, flags=re.M | re.S))
    for topic in ("Readers and epochs", "Random ops and seeds", "Iterators and frameworks", "Checkpoints",
                  "Classes and helpers", "Notebooks", "Projects and the helper module"):
        assert topic in sections
        assert "before" in sections[topic].lower() and "after" in sections[topic].lower(), topic

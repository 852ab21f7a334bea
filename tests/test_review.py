"""The review document: golden outputs for the bundled example repo, plus the structure that must
hold whatever the passes do (every hunk names a rule, every marker is listed with a suggestion).

Regenerate the goldens after an intended change (the unroll pass will change them):
``DALI_MIGRATE_REGEN=1 python -m pytest tests/test_review.py`` and read the diff before committing.
"""

import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dali_migrate.cli import main
from dali_migrate.engine import migrate_source
from dali_migrate.findings import MARKER_PREFIX
from dali_migrate.review import (build_review, migrate_for_review, parse_hunks, review_file, to_html,
                                 to_markdown)
from dali_migrate.findings import all_rules

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/repo"
GOLDEN = ROOT / "golden" / "review"


@pytest.fixture
def example_results(monkeypatch):
    monkeypatch.chdir(ROOT)  # paths in the documents are relative to the working directory
    return migrate_for_review([EXAMPLE])


def _check_golden(name: str, text: str):
    path = GOLDEN / name
    if os.environ.get("DALI_MIGRATE_REGEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{path} differs (DALI_MIGRATE_REGEN=1 to regenerate)"


def test_markdown_golden(example_results):
    _check_golden("review.md", to_markdown(build_review(example_results)))


def test_html_golden(example_results):
    _check_golden("review.html", to_html(build_review(example_results)))


def test_review_is_deterministic_and_has_no_absolute_paths(example_results, monkeypatch):
    first = to_markdown(build_review(example_results)) + to_html(build_review(example_results))
    again = migrate_for_review([EXAMPLE])
    assert to_markdown(build_review(again)) + to_html(build_review(again)) == first
    assert str(ROOT) not in first
    assert "/work/" not in first and "\\Users\\" not in first


def test_every_hunk_names_a_rule_and_every_marker_is_listed(example_results):
    review = build_review(example_results)
    by_path = {r.path: r for r in example_results}
    styles_changed = [f for f in review.files if f.hunks]
    assert len(styles_changed) >= 4
    for f in review.files:
        for hunk in f.hunks:
            assert hunk.rule_ids, f"{f.path} {hunk.header}: a hunk no rule explains"
            for rid in hunk.rule_ids:
                assert all_rules()[rid].why
        # Every marker comment in the migrated code is in the review, with a suggestion, at its line.
        migrated = by_path[f.path].migrated.splitlines()
        marker_lines = [i for i, line in enumerate(migrated, 1) if line.strip().startswith(MARKER_PREFIX)]
        assert sorted(m.migrated_line for m in f.markers) == marker_lines
        for m in f.markers:
            assert m.suggestion
            assert migrated[m.migrated_line - 1].strip() == f"{MARKER_PREFIX} {m.finding.rule} {m.finding.message}"
    assert sum(len(f.markers) for f in review.files) >= 1
    text = to_markdown(review)
    for f in review.files:
        for m in f.markers:
            assert f"**{m.finding.rule} " in text and "Suggestion: " in text


SOURCE = '''import nvidia.dali.fn as fn
import numpy as np


def helper(x):
    return x


# a graph helper that pipelines call (not a pipeline itself: no unrolling, separate hunks)
def pipe(data):
    a = fn.cast(data, dtype=1)
    b = a
    c = b
    d = c
    e = d
    f = e
    g = f
    h = g
    out = fn.python_function(h, function=helper)
    return out
'''


def test_findings_go_to_the_hunk_that_changes_their_line():
    result = migrate_source(SOURCE, "case.py")
    file_review = review_file(result)
    # Three hunks: the added import (explained by the file-level DM100 finding), the fn.cast
    # rename on line 11, and the marker inserted above line 19 (unchanged itself).
    assert [(h.rule_ids, h.file_level, [x.line for x in h.findings]) for h in file_review.hunks] == [
        (["DM100"], True, [1]),  # file-level: line 1, never line 0
        (["DM101"], False, [11]),
        (["DM103"], False, [19]),
    ]
    assert [m.migrated_line for m in file_review.markers] == [20]


def test_hunk_touched_lines():
    diff = "@@ -3,4 +3,5 @@\n a\n-b\n+B\n c\n+# marker\n d\n"
    (hunk,) = parse_hunks(diff)
    assert hunk.touched_old_lines() == {4, 6}
    assert hunk.change_blocks() == [(4, 4), (6, 6)]


def test_unparsable_file_and_escaping(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text("import nvidia.dali.fn as fn\ndef broken(:\n")
    (tmp_path / "x<b>&.py").write_text("import nvidia.dali.fn as fn\ny = fn.python_function(1)\n")
    review = build_review(migrate_for_review(["."]))
    bad = next(f for f in review.files if f.path == "bad.py")
    assert bad.status == "error" and not bad.hunks
    assert bad.error and not bad.markers  # one error, not also a spot for a person
    page = to_html(review)
    assert "x<b>" not in page and "x&lt;b&gt;&amp;.py" in page
    _assert_well_formed(page)
    md = to_markdown(review)
    assert "x<b>" not in md and "x&lt;b>" in md


class _TagChecker(HTMLParser):
    VOID = {"meta", "br", "hr", "img", "link", "input"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags = [], [], set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("#"):
                self.errors.append(f"external reference {name}={value}")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def _assert_well_formed(page: str):
    checker = _TagChecker()
    checker.feed(page)
    checker.close()
    assert not checker.errors, checker.errors[:5]
    assert not checker.stack, checker.stack
    assert "script" not in checker.tags and "link" not in checker.tags
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page


def test_html_is_one_self_contained_well_formed_page(example_results):
    page = to_html(build_review(example_results))
    _assert_well_formed(page)
    for f in build_review(example_results).files:
        assert f'id="file-' in page


def test_cli_writes_markdown_and_html(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    out_md, out_html = tmp_path / "r.md", tmp_path / "r.html"
    assert main(["review", EXAMPLE, "-o", str(out_md)]) == 1  # changes and markers pending
    assert main(["review", EXAMPLE, "--html", "--output", str(out_html)]) == 1
    assert out_md.read_text().startswith("# dali-migrate review")
    assert out_html.read_text().startswith("<!DOCTYPE html>")
    assert main(["review", "examples/repo/utils.py"]) == 0  # no DALI: nothing to do
    assert "0 would change" in capsys.readouterr().err
    assert main(["review", str(tmp_path / "missing.py")]) == 2


def _headless_browser():
    import shutil

    for name in ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


# What a reviewer sees, measured in the rendered page: a script appended to a copy of the review reads the laid-out
# boxes and computed colours, and writes them into the DOM, which the browser dumps after the page loaded.
_PROBE = """<pre id="probe"></pre><script>
const box = e => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top + scrollY, width: r.width,
                   height: r.height, bottom: r.bottom + scrollY}; };
const seen = {viewport: innerWidth, page_width: document.documentElement.scrollWidth,
              page_height: document.documentElement.scrollHeight, table: [], files: []};
for (const a of document.querySelectorAll("table a")) {
  const target = document.querySelector(a.getAttribute("href"));
  seen.table.push({text: a.innerText, target: target ? box(target) : null});
}
for (const s of document.querySelectorAll("section")) {
  const file = {title: s.querySelector("h2 code").innerText, box: box(s), hunks: [],
                person: [...s.querySelectorAll(".person li")].map(li => ({text: li.innerText, box: box(li),
                         bg: getComputedStyle(li.closest(".person")).backgroundColor}))};
  for (const pre of s.querySelectorAll("pre.diff")) {
    const prev = pre.previousElementSibling;
    const findings = prev && prev.matches("ul.findings") ? [...prev.children] : [];
    file.hunks.push({box: box(pre), findings: findings.map(li => ({text: li.innerText, box: box(li)})),
                     lines: [...pre.querySelectorAll("span")].map(sp => ({cls: sp.className, text: sp.innerText,
                             box: box(sp), bg: getComputedStyle(sp).backgroundColor}))});
  }
  seen.files.push(file);
}
document.getElementById("probe").textContent = JSON.stringify(seen);
</script>"""
_ADD, _DEL, _MARK = "rgb(218, 251, 225)", "rgb(255, 235, 233)", "rgb(255, 248, 197)"  # review._CSS's colours


def _artifacts() -> Path:
    """Where a test keeps what a person may want to look at after the run (CI can upload the folder)."""
    folder = Path(os.environ.get("DALI_MIGRATE_ARTIFACTS", ROOT / "test-artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.skipif(_headless_browser() is None,
                    reason="no headless chromium on this machine (scripts/setup-browser.sh installs it with "
                           "apt-get where the tests run as root; elsewhere: apt-get install chromium)")
def test_html_renders_in_a_browser(example_results, tmp_path):
    """The HTML review of a real migration (examples/repo), rendered by headless Chromium: every file of the run
    has its section, each hunk's findings sit right above the diff that holds the lines they name, the diff's
    added, removed and marker lines are coloured, and the page is as wide as the window (diffs scroll inside).
    The screenshot is kept: test-artifacts/review-browser.png (or under $DALI_MIGRATE_ARTIFACTS)."""
    import html
    import json
    import re
    import subprocess

    from PIL import Image

    review = build_review(example_results)
    page_text = to_html(review)
    page, probed = tmp_path / "review.html", tmp_path / "probed.html"
    page.write_text(page_text, encoding="utf-8")
    probed.write_text(page_text.replace("</body>", _PROBE + "\n</body>"), encoding="utf-8")
    browser = [_headless_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,2400"]
    dumped = subprocess.run([*browser, "--dump-dom", probed.as_uri()], check=True, capture_output=True, text=True,
                            timeout=120).stdout
    seen = json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', dumped, re.S).group(1)))

    # The files: the summary table lists each file of the run and links to its section, which the page shows.
    changed = [f for f in review.files if f.hunks]
    assert changed and [f["title"] for f in seen["files"]] == [f.path for f in review.files]
    assert [row["text"] for row in seen["table"]] == [f.path for f in review.files]
    assert all(row["target"] and row["target"]["height"] > 0 for row in seen["table"])
    assert seen["page_width"] <= seen["viewport"]  # nothing sticks out sideways: long diff lines scroll in place

    placed = 0
    for f, shown in zip(review.files, seen["files"]):
        assert len(shown["hunks"]) == len(f.hunks)
        for hunk, drawn in zip(f.hunks, shown["hunks"]):
            # The diff: the hunk's lines, in order, each a visible row coloured by what happened to it.
            rows = drawn["lines"]
            assert [r["text"].rstrip("\n") for r in rows[1:]] == hunk.lines and rows[0]["text"] == hunk.header
            for line, row in zip(hunk.lines, rows[1:]):
                assert row["box"]["height"] > 0
                want = _MARK if "mark" in row["cls"] else {"+": _ADD, "-": _DEL}.get(line[:1])
                if want:
                    assert row["bg"] == want, (f.path, line)
            tops = [r["box"]["top"] for r in rows]
            assert tops == sorted(tops)
            # The findings beside their lines: listed right above the diff (nothing between them, in its
            # column), each naming a line of the original that this very diff shows.
            located = [x for x in hunk.findings if not x.file_level]
            assert len(drawn["findings"]) == len(located)
            if located:
                assert drawn["box"]["top"] - drawn["findings"][-1]["box"]["bottom"] < 40
            for finding, item in zip(located, drawn["findings"]):
                assert item["text"].startswith(f"line {finding.line}: {finding.rule}")
                assert item["box"]["bottom"] <= drawn["box"]["top"]
                assert drawn["box"]["left"] <= item["box"]["left"] <= drawn["box"]["left"] + 60  # the list's indent
                old = hunk.old_start
                for line, row in zip(hunk.lines, rows[1:]):
                    if line[:1] in (" ", "-"):
                        if old == finding.line:
                            assert row["box"]["top"] > item["box"]["bottom"]  # the named line, below its finding
                            placed += 1
                            break
                        old += 1
                else:
                    pytest.fail(f"{f.path}: line {finding.line} of {finding.rule} is not in the diff below it")
        # The spots for a person: one item each, on the highlighted box.
        assert len(shown["person"]) == len(f.markers)
        assert all(item["bg"] == _MARK and item["box"]["height"] > 0 for item in shown["person"])
    assert placed > 0 and any(f.markers for f in review.files)

    shot = _artifacts() / "review-browser.png"
    # The whole page, however long the run's diffs make it (a window of its height; capped, for a runaway page)
    height = min(max(seen["page_height"], 2400), 16000)
    whole = [*browser[:-1], f"--window-size=1200,{height}"]
    subprocess.run([*whole, f"--screenshot={shot}", page.as_uri()], check=True, capture_output=True, timeout=120)
    print(f"screenshot: {shot}")
    with Image.open(shot) as image:
        assert image.size == (1200, height)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
    # Styled text, tables and coloured diff lines give many colours; an unstyled or blank page few.
    assert len(colours) > 200
    counts = {rgb: n for n, rgb in colours}
    for colour in (_ADD, _DEL, _MARK):  # added, removed and marker rows are on the screenshot, as areas
        rgb = tuple(int(v) for v in re.findall(r"\d+", colour))
        assert counts.get(rgb, 0) > 1000, colour

"""Review documents: what a migration changes, hunk by hunk, and why; and what is left for a person.

``build_review(results)`` turns ``MigrationResult``s into a ``Review`` (plain data), which renders
as Markdown (``to_markdown``) or as one self-contained HTML page (``to_html``: inline CSS, no
external assets, everything escaped).

How hunks are attributed to rules: a finding's *original* line number is looked up in the hunks of
the unified diff. A finding belongs to the hunk that removes its line, or inserts lines just before
it (a marker comment goes above its statement); failing that, to the hunk whose old-side range
contains the line. File-level findings (the import clean-up, for one): they are
listed at the top of the file's section, and a hunk that no line-level finding explains is
attributed to them (marked "file-level"). A finding whose line no hunk touches (a change the tool
reported but did not need to make) is listed after the hunks.

The output has no timestamps and no absolute paths unless the paths given were absolute, so a
review of the same code is byte-identical from run to run (the golden tests rely on it).
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .api import migrate_file, missing_file
from .engine import MigrationResult
from .files import iter_source_files
from .findings import MARKER_PREFIX, Finding, Rule, all_rules
from .output import plural

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

STATUS_WORDS = {
    "migrated": "migrated",
    "needs-attention": "migrated, with spots for a person",
    "clean": "nothing to change",
    "error": "not migrated (error)",
    "no-dali": "no DALI",
}


@dataclass
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: list[str]  # the hunk body, each line with its " ", "-" or "+" prefix and no newline
    findings: list[Finding] = field(default_factory=list)
    file_level: bool = False  # explained only by file-level findings

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_len} +{self.new_start},{self.new_len} @@"

    @property
    def rule_ids(self) -> list[str]:
        return sorted({f.rule for f in self.findings})

    def touched_old_lines(self) -> set[int]:
        """Old-side lines this hunk removes or replaces, plus the old line before which it only
        inserts lines (where a marker comment goes above its statement)."""
        return {n for first, last in self.change_blocks() for n in range(first, last + 1)}

    def contains_old_line(self, line: int) -> bool:
        return self.old_start <= line <= self.old_start + max(self.old_len, 1) - 1

    def change_blocks(self) -> list[tuple[int, int]]:
        """Each run of changed lines as the old-side lines it covers, ``(first, last)``; a pure
        insertion covers the old line it is inserted before (``first == last``)."""
        blocks, old, start, removed = [], self.old_start, None, 0
        for line in [*self.lines, " "]:  # a sentinel context line closes the last run
            tag = line[:1]
            if tag in "-+":
                if start is None:
                    start, removed = old, 0
                if tag == "-":
                    old += 1
                    removed += 1
            else:
                if start is not None:
                    blocks.append((start, start + removed - 1 if removed else start))
                    start = None
                if tag != "\\":
                    old += 1
        return blocks

    @property
    def file_level_rule_ids(self) -> list[str]:
        return sorted({f.rule for f in self.findings if f.file_level})


@dataclass
class Marker:
    """A spot left for a person: the finding, where its marker sits in the migrated code, what to do."""

    finding: Finding
    migrated_line: int  # 0 when the marker comment was not found (should not happen: a bug)
    suggestion: str


@dataclass
class FileReview:
    path: str
    status: str
    error: str | None
    file_findings: list[Finding]
    hunks: list[Hunk]
    unplaced: list[Finding]
    markers: list[Marker]


@dataclass
class Review:
    files: list[FileReview]
    rules: dict[str, Rule]
    scanned: int  # files looked at, with or without DALI

    def rule_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for f in self.files:
            for finding in [*f.file_findings, *(x for h in f.hunks for x in h.findings if not x.file_level),
                            *f.unplaced]:
                counts[finding.rule] = counts.get(finding.rule, 0) + 1
        return dict(sorted(counts.items()))


# ----------------------------------------------------------------------------------- building
def parse_hunks(diff: str) -> list[Hunk]:
    hunks: list[Hunk] = []
    for line in diff.splitlines():
        match = _HUNK_HEADER.match(line)
        if match:
            old_start, old_len, new_start, new_len = match.groups()
            hunks.append(Hunk(int(old_start), int(old_len if old_len is not None else 1),
                              int(new_start), int(new_len if new_len is not None else 1), []))
        elif hunks and line[:1] in (" ", "-", "+") and not line.startswith(("--- ", "+++ ")):
            hunks[-1].lines.append(line)
        elif hunks and line.startswith("\\"):  # "\ No newline at end of file"
            hunks[-1].lines.append(line)
    return hunks


def _marker_line(migrated: str, finding: Finding) -> int:
    prefix = f"{MARKER_PREFIX} {finding.rule} "
    candidates = [i for i, text in enumerate(migrated.splitlines(), 1) if text.strip().startswith(prefix)]
    exact = [i for i in candidates
             if migrated.splitlines()[i - 1].strip() == f"{MARKER_PREFIX} {finding.rule} {finding.message}"]
    pool = exact or candidates
    # Several markers of one rule: the one nearest below-or-at the original line's neighbourhood.
    return min(pool, key=lambda i: (abs(i - finding.line), i)) if pool else 0


def review_file(result: MigrationResult) -> FileReview:
    hunks = parse_hunks(result.diff())
    file_findings = [f for f in result.findings if f.file_level]
    unplaced: list[Finding] = []
    for finding in (f for f in result.findings if not f.file_level):
        home = next((h for h in hunks if finding.line in h.touched_old_lines()), None)
        if home is None:
            home = next((h for h in hunks if h.contains_old_line(finding.line)), None)
        if home is None:
            unplaced.append(finding)
        else:
            home.findings.append(finding)
    # File-level findings explain the change blocks that no line-level finding explains,
    # such as the import clean-up at the top of the file.
    for hunk in hunks:
        lines = [f.line for f in hunk.findings if not f.file_level]
        unexplained = [b for b in hunk.change_blocks() if not any(b[0] <= n <= b[1] for n in lines)]
        if unexplained and file_findings:
            hunk.file_level = not hunk.findings
            hunk.findings = [*file_findings, *hunk.findings]
    markers = [Marker(finding, _marker_line(result.migrated, finding), finding.suggestion)
               for finding in result.manual]  # none for a file with an error: it is left untouched
    return FileReview(result.path, result.status, result.error, file_findings, hunks, unplaced, markers)


def build_review(results: list[MigrationResult], scanned: int | None = None) -> Review:
    rules = all_rules()
    files = [review_file(r) for r in results if r.reported]
    scanned = sum(not r.created for r in results) if scanned is None else scanned  # a created file was not scanned
    return Review(files, rules, scanned)


def display_path(path: Path) -> str:
    """The path relative to the working directory when it lies below it (no absolute paths in
    documents meant to be compared or shared), else as given; always with forward slashes."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return Path(path).as_posix()
    return Path(path).as_posix() if relative.startswith("..") else Path(relative).as_posix()


def migrate_for_review(paths) -> list[MigrationResult]:
    results = []
    for path in iter_source_files(paths):
        if not path.exists():
            results.append(missing_file(display_path(path)))
            continue
        results.append(migrate_file(path, display_path(path)))
    from .api import share_helpers

    return results + share_helpers(results, paths)  # the project's helper module, as migrate --write makes it


def review_paths(paths) -> Review:
    return build_review(migrate_for_review(paths))


# ----------------------------------------------------------------------------------- Markdown
def _md(text: str) -> str:
    """Prose from findings into Markdown: no raw HTML, no accidental emphasis, one line."""
    text = re.sub(r"&(?=#?[A-Za-z0-9]+;)", "&amp;", text).replace("<", "&lt;")
    return text.replace("*", "\\*").replace("\n", " ")


def _hunk_title(hunk: "Hunk") -> str:
    if not hunk.findings:
        return "no rule (unexplained change)"
    line_level = {f.rule for f in hunk.findings if not f.file_level}
    return ", ".join(rid if rid in line_level else f"{rid} (file-level)" for rid in hunk.rule_ids)


def _fence(body: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def _slug(path: str) -> str:
    return "file-" + re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def _rule_title(rules: dict[str, Rule], rule_id: str) -> str:
    rule = rules.get(rule_id)
    return f"{rule_id} {rule.name}" if rule else rule_id


def _finding_line(f: Finding) -> str:
    return "file" if f.file_level else f"line {f.line}"


def to_markdown(review: Review) -> str:
    rules = review.rules
    out = ["# dali-migrate review", ""]
    changed = sum(1 for f in review.files if f.hunks)
    markers = sum(len(f.markers) for f in review.files)
    out += [f"{plural(review.scanned, 'file')} scanned, {len(review.files)} use DALI or failed, {changed} changed, "
            f"{plural(markers, 'spot')} for a person.", ""]
    if review.files:
        out += ["| File | Status | Hunks | For a person |", "|---|---|---|---|"]
        for f in review.files:
            out.append(f"| [{_md(f.path).replace('|', '&#124;')}](#{_slug(f.path)}) | {STATUS_WORDS.get(f.status, f.status)} | "
                       f"{len(f.hunks)} | {len(f.markers)} |")
        out.append("")
    counts = review.rule_counts()
    if counts:
        out += ["Rules applied: " + ", ".join(f"{rid} × {n}" for rid, n in counts.items())
                + ". Each rule is documented in `docs/rules.md`.", ""]
    for f in review.files:
        out += [f'<a id="{_slug(f.path)}"></a>', "", f"## {_md(f.path)}", "",
                f"Status: **{STATUS_WORDS.get(f.status, f.status)}**."]
        if f.error:
            out[-1] += f" {_md(f.error)}; the file is left untouched."
        out.append("")
        if f.file_findings:
            out += ["File-level changes:", ""]
            out += [f"- **{_rule_title(rules, x.rule)}**: {_md(x.message)}" for x in f.file_findings]
            out.append("")
        for i, hunk in enumerate(f.hunks, 1):
            out += [f"### Hunk {i}: {_hunk_title(hunk)}", ""]
            for rid in hunk.rule_ids:
                rule = rules.get(rid)
                why = _md(rule.why) if rule else "undocumented rule"
                out.append(f"- **{_rule_title(rules, rid)}**: {why}")
            located = [x for x in hunk.findings if not x.file_level]
            if located:
                out += ["", "Findings:", ""]
                for x in located:
                    state = " *(for a person)*" if not x.fixed else ""
                    out.append(f"- {_finding_line(x)}: {x.rule} {_md(x.message)}{state}")
            out.append("")
            body = "\n".join([hunk.header, *hunk.lines])
            fence = _fence(body)
            out += [f"{fence}diff", body, fence, ""]
        if f.unplaced:
            out += ["Reported without a change in the diff:", ""]
            out += [f"- {_finding_line(x)}: **{_rule_title(rules, x.rule)}** {_md(x.message)}" for x in f.unplaced]
            out.append("")
        if f.markers:
            out += [f"### For a person ({len(f.markers)})", ""]
            for m in f.markers:
                where = f"line {m.finding.line}" + (f" (marker at migrated line {m.migrated_line})"
                                                     if m.migrated_line else "")
                out.append(f"- [ ] **{_rule_title(rules, m.finding.rule)}**, {where}: {_md(m.finding.message)}")
                if m.suggestion:
                    out.append(f"  Suggestion: {_md(m.suggestion)}")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ----------------------------------------------------------------------------------- HTML
_CSS = """
:root { --fg:#1f2328; --muted:#59636e; --bg:#ffffff; --line:#d1d9e0; --add:#dafbe1; --del:#ffebe9;
        --hunk:#ddf4ff; --warn:#fff8c5; --warnline:#d4a72c; }
* { box-sizing: border-box; }
body { font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 1.6em; border-bottom: 1px solid var(--line); padding-bottom: .3em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid var(--line); padding-bottom: .2em; }
h2 code { font-size: .95em; font-weight: 600; }
p code, li code { background: #f6f8fa; border-radius: 4px; padding: 0 .25em; }
h3 { font-size: 1.05em; margin: 1.4em 0 .4em; }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; }
th { background: #f6f8fa; }
.status { display: inline-block; border-radius: 1em; padding: 0 .7em; font-size: .85em; background: #eef; }
.status.needs-attention { background: var(--warn); } .status.error { background: var(--del); }
.status.migrated { background: var(--add); }
.rule { font-weight: 600; white-space: nowrap; }
.why { color: var(--muted); }
ul.findings { color: var(--muted); font-size: .9em; margin-top: 0; }
pre.diff { border: 1px solid var(--line); border-radius: 6px; overflow-x: auto; padding: 0; margin: .5em 0 1em; }
pre.diff code { display: inline-block; min-width: 100%; }
pre.diff span { display: block; padding: 0 10px; white-space: pre; }
pre.diff .add { background: var(--add); } pre.diff .del { background: var(--del); }
pre.diff .hdr { background: var(--hunk); color: var(--muted); }
pre.diff .mark { background: var(--warn); font-weight: 600; }
.person { border-left: 4px solid var(--warnline); background: var(--warn); padding: 8px 14px; border-radius: 0 6px 6px 0; }
.person li { margin: .4em 0; } .suggestion { display: block; }
.muted { color: var(--muted); }
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _prose(text) -> str:
    """Escape prose from findings and rules for HTML; `backticked` spans become <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _diff_line_class(line: str) -> str:
    if line.startswith("+") and line[1:].strip().startswith(MARKER_PREFIX):
        return "add mark"
    return {"+": "add", "-": "del"}.get(line[:1], "ctx")


def to_html(review: Review) -> str:
    rules = review.rules
    changed = sum(1 for f in review.files if f.hunks)
    markers = sum(len(f.markers) for f in review.files)
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>dali-migrate review</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
           "<h1>dali-migrate review</h1>",
           f"<p>{plural(review.scanned, 'file')} scanned, {len(review.files)} use DALI or failed, {changed} changed, "
           f"<strong>{plural(markers, 'spot')} for a person</strong>.</p>"]
    if review.files:
        out.append("<table><thead><tr><th>File</th><th>Status</th><th>Hunks</th><th>For a person</th></tr>"
                   "</thead><tbody>")
        for f in review.files:
            out.append(f'<tr><td><a href="#{_e(_slug(f.path))}"><code>{_e(f.path)}</code></a></td>'
                       f'<td><span class="status {_e(f.status)}">{_e(STATUS_WORDS.get(f.status, f.status))}</span></td>'
                       f"<td>{len(f.hunks)}</td><td>{len(f.markers)}</td></tr>")
        out.append("</tbody></table>")
    counts = review.rule_counts()
    if counts:
        out.append("<p>Rules applied: " + ", ".join(
            f'<span class="rule" title="{_e(rules[r].summary if r in rules else "")}">{_e(r)}</span> × {n}'
            for r, n in counts.items()) + ".</p>")
    for f in review.files:
        out.append(f'<section id="{_e(_slug(f.path))}">')
        out.append(f'<h2><code>{_e(f.path)}</code> <span class="status {_e(f.status)}">'
                   f"{_e(STATUS_WORDS.get(f.status, f.status))}</span></h2>")
        if f.error:
            out.append(f"<p>{_e(f.error)}; the file is left untouched.</p>")
        if f.file_findings:
            out.append("<p>File-level changes:</p><ul>")
            out += [f'<li><span class="rule">{_e(_rule_title(rules, x.rule))}</span>: {_prose(x.message)}</li>'
                    for x in f.file_findings]
            out.append("</ul>")
        for i, hunk in enumerate(f.hunks, 1):
            out.append(f"<h3>Hunk {i}: {_e(_hunk_title(hunk))}</h3><ul>")
            for rid in hunk.rule_ids:
                rule = rules.get(rid)
                out.append(f'<li><span class="rule">{_e(_rule_title(rules, rid))}</span>: '
                           f'<span class="why">{_prose(rule.why if rule else "undocumented rule")}</span></li>')
            out.append("</ul>")
            located = [x for x in hunk.findings if not x.file_level]
            if located:
                out.append('<ul class="findings">')
                for x in located:
                    state = " <em>(for a person)</em>" if not x.fixed else ""
                    out.append(f"<li>{_e(_finding_line(x))}: {_e(x.rule)} {_prose(x.message)}{state}</li>")
                out.append("</ul>")
            spans = [f'<span class="hdr">{_e(hunk.header)}</span>']
            spans += [f'<span class="{_diff_line_class(line)}">{_e(line)}</span>' for line in hunk.lines]
            out.append('<pre class="diff"><code>' + "".join(spans) + "</code></pre>")
        if f.unplaced:
            out.append("<p>Reported without a change in the diff:</p><ul>")
            out += [f'<li>{_e(_finding_line(x))}: <span class="rule">{_e(_rule_title(rules, x.rule))}</span> '
                    f"{_prose(x.message)}</li>" for x in f.unplaced]
            out.append("</ul>")
        if f.markers:
            out.append(f'<div class="person"><h3>For a person ({len(f.markers)})</h3><ul>')
            for m in f.markers:
                where = f"line {m.finding.line}" + (f" (marker at migrated line {m.migrated_line})"
                                                     if m.migrated_line else "")
                suggestion = (f'<span class="suggestion">Suggestion: {_prose(m.suggestion)}</span>'
                              if m.suggestion else "")
                out.append(f'<li><span class="rule">{_e(_rule_title(rules, m.finding.rule))}</span>, '
                           f"{_e(where)}: {_prose(m.finding.message)}{suggestion}</li>")
            out.append("</ul></div>")
        out.append("</section>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"

"""The golden programs (golden/runnable/<case>/): migrate each, run original and migrated, and say how far
the migration got. The instrument for issue 14 ("a migrated program runs").

    python benchmarks/programs.py                 # one row per case, then the totals
    python benchmarks/programs.py CASE ... -v     # only these cases, with each report
    python benchmarks/programs.py --json OUT      # also the rows as JSON
    python benchmarks/programs.py --readme        # also rewrite the table in golden/runnable/README.md

Each case is a small project (``main.py`` or ``main.ipynb`` plus helper modules) and a ``case.json``:
``pattern`` (what it covers), ``command`` (``{images}``, ``{numpy}``, ``{filelist}`` stand for the
generated data, tests/runtime.py ``make_program_data``), ``expected`` (``equal`` | ``marked-equal`` |
``marked-different``, or a list of them where more than one is honest), for ``marked-different`` a ``difference`` (``rules`` the migration must report and
``lines``, a regex every differing stdout line of the original must match), optionally ``outputs`` (a
folder the program writes, compared too) and ``xfail`` (why it fails with today's tool).

Status of a case, from ``dali_migrate.harness.programs.verify_program``:

* ``equal``: no marker, same output;
* ``marked-running``: markers or reported differences, and the program runs with the same output, or
  with exactly the difference the migration reported;
* ``silently-incomplete``: pipeline-mode API left in a migrated file that has no marker (the patterns of
  the corpus check's LEFT list), however it ran;
* ``broken``: anything else: the migrated program fails or hangs, its output differs without a reported
  reason (or not where the case says it may), or a second migration changes the written files again.

A case passes when its status is ``equal`` or ``marked-running``: issue 14's promise, a migrated program
runs and prints the same, or is marked and still does (or differs exactly as the migration said). It is
*at its ideal* when its outcome is also the one ``expected`` names (what a complete migration gives: most
cases expect ``equal``); the gap between the two is the coverage still to build.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shlex
import sys
import tempfile
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNABLE = ROOT / "golden" / "runnable"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from dali_migrate.findings import MARKER_PREFIX  # noqa: E402
from dali_migrate.harness.programs import compare_text, lines_equal, verify_program  # noqa: E402
from dali_migrate.harness.compare import Tolerance  # noqa: E402

EXPECTED = ("equal", "marked-equal", "marked-different")
STATUSES = ("equal", "marked-running", "broken", "silently-incomplete")
TIMEOUT_S = 120
# Pipeline-mode API that must not be left in a migrated file without a marker (the LEFT list of
# /work/shared/corpus/check.py, the corpus measure the lead uses).
LEFT = [r"\bpipeline_def\b", r"\bPipeline\s*\(", r"\bfn\.[a-z]", r"\bops\.[A-Z]", r"\bops\.readers",
        r"['\"]mixed['\"]", r"DALIGenericIterator", r"DALIClassificationIterator", r"define_graph",
        r"set_outputs", r"\.build\(\)", r"\.run\(\)", r"\.schedule_run\(", r"\.share_outputs\(",
        r"\.as_array\(", r"\.as_cpu\(", r"\.at\("]
_MARKER = re.compile(re.escape(MARKER_PREFIX) + r"\s*DM\d{3}")


@dataclass
class CaseResult:
    name: str
    pattern: str
    expected: list
    status: str = "broken"
    outcome: str = ""
    passes: bool = False
    ideal: bool = False  # passes, with the outcome the case expects
    why: str = ""  # what keeps a case from passing, or what the markers were
    markers: list[str] = field(default_factory=list)
    seconds: float = 0.0
    xfail: str = ""
    report: object = None

    def row(self) -> dict:
        return {"case": self.name, "status": self.status, "outcome": self.outcome, "expected": self.expected,
                "passes": self.passes, "ideal": self.ideal, "why": self.why, "markers": self.markers, "seconds": round(self.seconds, 1),
                "xfail": self.xfail or None}


def case_folders() -> list[Path]:
    return sorted(p.parent for p in RUNNABLE.glob("*/case.json"))


def load_case(folder: Path) -> dict:
    case = json.loads((folder / "case.json").read_text())
    unknown = set(case) - {"pattern", "command", "expected", "difference", "outputs", "xfail", "migrate"}
    assert not unknown, f"{folder.name}/case.json: unknown keys {sorted(unknown)}"
    expected = case["expected"] if isinstance(case["expected"], list) else [case["expected"]]
    assert expected and set(expected) <= set(EXPECTED), f"{folder.name}: expected must be among {EXPECTED}"
    case["expected"] = expected
    assert ("marked-different" in expected) == ("difference" in case), \
        f"{folder.name}: a marked-different case says its difference (rules, lines), and only it"
    return case


def command_for(case: dict, data: dict[str, str]) -> str:
    """The case's command with the data paths filled in; ``python`` is this interpreter, so that the
    programs run with the DALI the tests use even where the virtual environment is not activated."""
    command = re.sub(r"\{(\w+)\}", lambda m: shlex.quote(data[m.group(1)]), case["command"])
    program, _, rest = command.partition(" ")
    return f"{shlex.quote(sys.executable)} {rest}" if program == "python" else command


def code_only(text: str) -> str:
    """Code with comments and string literals blanked (a string that is exactly 'mixed' is kept)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    chars = list(text)
    for t in tokens:
        if t.type == tokenize.COMMENT or (t.type == tokenize.STRING and t.string.strip("'\"") != "mixed"):
            a, b = starts[t.start[0] - 1] + t.start[1], starts[t.end[0] - 1] + t.end[1]
            for i in range(a, b):
                if chars[i] not in "\r\n":
                    chars[i] = " "
    return "".join(chars)


def _python_of(path: str, text: str) -> str:
    if not path.endswith(".ipynb"):
        return text
    from dali_migrate.harness.run_notebook import cell_magic, code_cells, python_of_cell

    return "\n".join(python_of_cell(src) for _, src in code_cells(text) if not cell_magic(src))


def leftovers(report, folder: Path, only=None) -> dict[str, list[str]]:
    """Migrated files (as the migration wrote them, before any device mapping) that have no marker but
    still use pipeline-mode API: {file: the LEFT patterns found}. ``only``: the files and folders the case
    migrates (its ``migrate``); the rest stay pipeline-mode code on purpose."""
    migrated = report.migrated_files
    if only and isinstance(only[0], list):  # runs one after the other: what any of them migrates
        only = [part for run in only for part in run]
    if only and "." in only:
        only = None
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.suffix not in (".py", ".ipynb") or "__pycache__" in rel:
            continue
        if only and not any(rel == part or rel.startswith(part.rstrip("/") + "/") for part in only):
            continue
        result = migrated.get(rel)
        text = result.migrated if result is not None and result.changed else path.read_text()
        code = _python_of(rel, text)
        if _MARKER.search(code):
            continue
        left = [pattern for pattern in LEFT if re.search(pattern, code_only(code)) and not _own_class(pattern, code)]
        if left:
            found[rel] = left
    return found


def _own_class(pattern: str, code: str) -> bool:
    """A plugin iterator's name that the file gives to a class of its own (``class DALIGenericIterator(object)``,
    as training examples copy it) and imports from nowhere: the user's class, not pipeline-mode API. The
    corpus check (check.py) matches the text alone and counts such a file LEFTOVER."""
    if pattern not in ("DALIGenericIterator", "DALIClassificationIterator"):
        return False
    code = code_only(code)
    return re.search(rf"^\s*class\s+{pattern}\b", code, flags=re.M) is not None and \
        re.search(rf"\bimport\b[^\n]*\b{pattern}\b", code) is None


def classify(name: str, case: dict, report, folder: Path) -> CaseResult:
    result = CaseResult(name, case["pattern"], case["expected"], outcome=report.outcome,
                        markers=report.marker_rules, xfail=case.get("xfail", ""), report=report)
    problems = []
    if report.verdict == "original-failed":
        problems.append("the ORIGINAL program fails (the case itself is wrong): "
                        + _last_line(report.original.stderr))
    elif report.verdict in ("migrated-failed", "timeout", "error"):
        problems.append(f"{report.verdict}: " + (report.error or _last_line(report.migrated.stderr)))
    elif report.outcome == "different":
        problems.append("a silent difference: " + _first_difference(report))
    elif report.outcome == "marked-different":
        unexplained = _unexplained_difference(case, report)
        if unexplained:
            problems.append(unexplained)
    if report.not_idempotent:
        problems.append("a second migration changes " + ", ".join(report.not_idempotent))
    left = leftovers(report, folder, case.get("migrate")) if report.verdict != "error" else {}
    if problems:
        result.status = "broken"
    elif left:
        result.status = "silently-incomplete"
        problems.append("no marker, but pipeline-mode API left: " +
                        "; ".join(f"{f}: {' '.join(p.replace(chr(92), '') for p in pats)}" for f, pats in left.items()))
    elif report.outcome == "equal":
        result.status = "equal"
    else:
        result.status = "marked-running"
    result.passes = not problems
    result.ideal = result.passes and report.outcome in case["expected"]
    said = sorted(set(report.marker_rules) | {f["rule"] for f in report.reported_differences})
    result.why = "; ".join(problems) if problems else ", ".join(said)
    if result.passes and not result.ideal:
        result.why += f" (runs; at its ideal it would be {' or '.join(case['expected'])})"
    return result


_ERROR_LINE = re.compile(r"^[\w.]*(Error|Exception|Interrupt|Exit)\b")


def _last_line(text: str) -> str:
    """The line that names the error (the last ``XxxError: ...`` line), else the last line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    named = [line for line in lines if _ERROR_LINE.match(line)]
    return (named or lines or ["(no stderr)"])[-1][:300]


def _first_difference(report) -> str:
    d = report.differences[0]
    where = d.what + (f" {d.path}" if d.path else "") + (f" line {d.line}" if d.line else "")
    return f"{where}: {d.original!r} -> {d.migrated!r}"


def _unexplained_difference(case: dict, report) -> str:
    """Why a difference is not the one the case allows (rules reported, lines), or ''."""
    allowed = case.get("difference")
    if not allowed:
        return "a difference the case does not allow, though the migration reported: " + \
            ", ".join(sorted({f["rule"] for f in report.reported_differences} | set(report.marker_rules))) + \
            "; " + _first_difference(report)
    reported = {f["rule"] for f in report.reported_differences} | set(report.marker_rules)
    missing = sorted(set(allowed["rules"]) - reported)
    if missing:
        return f"the difference is not reported: no {', '.join(missing)}; " + _first_difference(report)
    if any(d.what != "stdout" for d in report.differences):
        return "an output file differs: " + _first_difference(report)
    pattern = re.compile(allowed["lines"])
    a, b = report.original.stdout.splitlines(), report.migrated.stdout.splitlines()
    if len(a) != len(b):
        return f"a different number of lines ({len(a)} vs {len(b)}); " + _first_difference(report)
    tol = report.tolerance
    for number, (x, y) in enumerate(zip(a, b), start=1):
        if not lines_equal(x, y, tol) and not pattern.search(x):
            return f"line {number} differs and is not one the random ops may change: {x!r} -> {y!r}"
    return ""


def run_case(folder: Path, data: dict[str, str], scratch: Path | None = None,
             timeout_s: float = TIMEOUT_S) -> CaseResult:
    case = load_case(folder)
    started = time.perf_counter()
    # The notebook cases run `python -m dali_migrate.harness.run_notebook`: this checkout must be importable.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    report = verify_program(folder, command_for(case, data), outputs=case.get("outputs"), timeout_s=timeout_s,
                            scratch=scratch, jobs=1, concurrent=True, env=env, paths=case.get("migrate"))
    if report.verdict == "error" and report.migration is None:
        raise RuntimeError(f"{folder.name}: {report.error}")
    result = classify(folder.name, case, report, folder)
    result.seconds = time.perf_counter() - started
    return result


def totals(results: list[CaseResult]) -> dict[str, int]:
    counts = {status: 0 for status in STATUSES}
    for r in results:
        counts[r.status] += 1
    return counts


def format_table(results: list[CaseResult]) -> str:
    width = max(len(r.name) for r in results)
    lines = [f"{'case':<{width}}  {'status':<19}  {'outcome':<16}  {'expected':<27}  why"]
    for r in results:
        lines.append(f"{r.name:<{width}}  {r.status:<19}  {r.outcome:<16}  {' | '.join(r.expected):<27}  {r.why}")
    counts = totals(results)
    lines.append(f"{len(results)} programs: " + ", ".join(f"{k} {v}" for k, v in counts.items())
                 + f"; passing {sum(r.passes for r in results)}, at their ideal {sum(r.ideal for r in results)}")
    return "\n".join(lines)


README = RUNNABLE / "README.md"
TABLE_BEGIN, TABLE_END = "<!-- table: python benchmarks/programs.py --readme -->", "<!-- end of table -->"


def readme_table(results: list[CaseResult]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| case | pattern | expected | status today | why |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| `{r.name}` | {cell(r.pattern)} | {' or '.join(r.expected)} | {r.status} | {cell(r.why)} |")
    counts = totals(results)
    lines.append("")
    lines.append(f"**Totals** ({len(results)} programs): " + ", ".join(f"{k} **{v}**" for k, v in counts.items())
                 + f"; passing {sum(r.passes for r in results)}, at their ideal {sum(r.ideal for r in results)}.")
    return "\n".join(lines)


def write_readme(results: list[CaseResult]) -> None:
    text = README.read_text()
    head, _, rest = text.partition(TABLE_BEGIN)
    _, _, tail = rest.partition(TABLE_END)
    README.write_text(f"{head}{TABLE_BEGIN}\n{readme_table(results)}\n{TABLE_END}{tail}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each case's report")
    parser.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    parser.add_argument("--keep", metavar="DIR", help="keep the copies under DIR")
    parser.add_argument("--readme", action="store_true", help="rewrite the table in golden/runnable/README.md")
    args = parser.parse_args(argv)
    from runtime import make_program_data

    folders = [f for f in case_folders() if not args.cases or f.name in args.cases]
    missing = set(args.cases) - {f.name for f in folders}
    if missing:
        parser.error(f"no such case: {', '.join(sorted(missing))}")
    results = []
    with tempfile.TemporaryDirectory(prefix="dm-programs-") as tmp:
        data = make_program_data(Path(tmp) / "data")
        for folder in folders:
            scratch = Path(args.keep) / folder.name if args.keep else None
            result = run_case(folder, data, scratch)
            results.append(result)
            print(f"{result.name}: {result.status} ({result.outcome}, {result.seconds:.1f} s) {result.why}",
                  file=sys.stderr, flush=True)
            if args.verbose:
                print(result.report.format(), file=sys.stderr)
    print(format_table(results))
    if args.readme:
        if args.cases:
            parser.error("--readme needs every case (give no case names)")
        write_readme(results)
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": [r.row() for r in results], "totals": totals(results)},
                                              indent=1) + "\n")
    return 0 if all(r.passes for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

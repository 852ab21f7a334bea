"""Migration reports: run the migration over a repo (writing no sources) and say what it would take.

``build_report(paths)`` migrates every file in memory, finds the pipelines in the original code
(all four styles), verifies each one with the differential harness where it can, and returns a
``Report``; ``write_report(report, out_dir)`` writes ``report.md``, ``report.json`` and two plots
(``findings_by_rule.png``, ``throughput.png``).

What is compared by the golden tests and what is not: everything measured (migration time per
file, pipeline throughput) lives apart, under ``"measured"`` in ``report.json`` and under the last
section of ``report.md`` (``MEASURED_HEADING``); the rest is deterministic for the same code
(stable ordering, paths relative to the working directory, no timestamps).

Verification never invents results: when the harness is not available every pipeline says
"not run: harness not available"; a pipeline the harness cannot run says why it was skipped.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable


from . import __version__
from .api import migrate_file, missing_file
from .engine import MigrationResult
from .files import iter_source_files
from .findings import Finding, Rule, all_rules
from .output import plural
from .pipeline_defs import PipelineInfo, find_pipelines
from .review import display_path

MEASURED_HEADING = "## Measured (varies from run to run)"
MEASURED_KEY = "measured"
NOT_RUN_NO_HARNESS = "not run: harness not available"
NOT_RUN_DISABLED = "not run: verification turned off (--no-verify)"

FINDINGS_PLOT = "findings_by_rule.png"
THROUGHPUT_PLOT = "throughput.png"

STYLE_WORDS = {
    "pipeline_def": "@pipeline_def function",
    "with-block": "Pipeline(...) + with pipe:",
    "subclass": "Pipeline subclass (define_graph)",
    "legacy-ops": "Pipeline subclass with legacy ops.*",
}


# ----------------------------------------------------------------------------------- verification
@dataclass
class Verification:
    status: str  # equal | partial (equal where compared) | different | skipped | not-run
    reason: str = ""  # why skipped / not run, or what differed
    throughput_original: float | None = None  # samples per second
    throughput_migrated: float | None = None
    training_loop: dict | None = None  # harness.training_loop.TrainingLoop.to_dict(), when asked for

    @property
    def ratio(self) -> float | None:
        if self.throughput_original and self.throughput_migrated is not None:
            return self.throughput_migrated / self.throughput_original
        return None


def harness_verifier() -> Callable[..., Any] | None:
    """The harness's verify-one-pipeline function, or None when the harness is not available.

    The single place the report touches the harness (wired at merge). The function is called as
    ``verify(original_source, migrated_source, path=, name=, args=, kwargs=)`` and must return
    an object or dict with ``status`` ("equal" | "different" | "skipped"), ``reason`` and, when
    measured, ``throughput_original`` / ``throughput_migrated`` in samples per second.
    """
    try:
        import dali_migrate.harness as harness
    except ImportError:
        return None
    verify = getattr(harness, "verify_pipeline", None)
    return verify if callable(verify) else None


def _field(value, name, default=None):
    return value.get(name, default) if isinstance(value, dict) else getattr(value, name, default)


def verify_pipeline(pipeline: PipelineInfo, result: MigrationResult, call_args: dict | None,
                    verifier: Callable[..., Any] | None, not_run_reason: str = NOT_RUN_NO_HARNESS,
                    training_loop: dict | None = None) -> Verification:
    if verifier is None:
        return Verification("not-run", not_run_reason)
    if result.error:
        return Verification("skipped", f"the file was not migrated: {result.error}")
    if result.manual:
        rules = ", ".join(sorted({f.rule for f in result.manual}))
        return Verification("skipped", f"the migrated file carries markers ({rules}); a person must finish it first")
    if call_args is None and pipeline.required:
        return Verification("skipped", "needs arguments (" + ", ".join(pipeline.required) + "); give them with "
                            "--verify-args")
    call_args = call_args or {}
    try:
        extra = {"training_loop": training_loop} if training_loop is not None else {}
        outcome = verifier(result.original, result.migrated, path=result.path, name=pipeline.name,
                           args=list(call_args.get("args", [])), kwargs=dict(call_args.get("kwargs", {})), **extra)
    except Exception as e:  # a harness failure is a result to report, not a crash of the report
        return Verification("skipped", f"the harness failed: {type(e).__name__}: {e}")
    status = str(_field(outcome, "status", "skipped"))
    if status in ("failed", "incomplete"):
        status = "skipped"  # the harness could not run one side: report why, never as equal
    if status not in ("equal", "partial", "different", "skipped"):
        status = "skipped"
    return Verification(status, str(_field(outcome, "reason", "") or ""),
                        _field(outcome, "throughput_original"), _field(outcome, "throughput_migrated"),
                        _field(outcome, "training_loop"))


def load_verify_args(path: Path | None) -> dict[str, dict]:
    """``{"<file>::<pipeline>" or "<pipeline>": {"args": [...], "kwargs": {...}}}`` from a JSON file."""
    if path is None:
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError("--verify-args: expected an object mapping pipeline names to {\"args\", \"kwargs\"}")
    return data


# ----------------------------------------------------------------------------------- the report
@dataclass
class FileEntry:
    result: MigrationResult
    seconds: float
    pipelines: list[PipelineInfo]


@dataclass
class PipelineEntry:
    info: PipelineInfo
    verification: Verification


@dataclass
class Report:
    paths: list[str]
    files: list[FileEntry]
    pipelines: list[PipelineEntry]
    rules: dict[str, Rule]
    verifier_used: bool  # a verifier (the harness) ran the pipelines
    total_seconds: float
    not_run_reason: str = NOT_RUN_NO_HARNESS  # why nothing was verified when no verifier was used
    # The tool's own speed on these files (issue 8's measure): seconds to migrate the DALI files vs a
    # bare libcst parse-and-print of the same files, both measured again after the run (``_tool_speed``).
    speed: dict | None = None

    # -- counts ----------------------------------------------------------------------------
    def file_counts(self) -> dict[str, int]:
        results = [f.result for f in self.files if not f.result.created]
        return {
            "scanned": len(results),
            "created": sum(1 for f in self.files if f.result.created),  # the project's helper module
            "using_dali": sum(1 for r in results if r.uses_dali),
            "fully_migrated": sum(1 for r in results if r.status == "migrated"),
            "migrated_with_markers": sum(1 for r in results if r.status == "needs-attention"),
            "unchanged": sum(1 for r in results if r.status == "clean"),
            "failed": sum(1 for r in results if r.status == "error"),
        }

    def findings(self) -> list[Finding]:
        return [x for f in self.files for x in f.result.findings]

    def rule_counts(self) -> dict[str, dict[str, int]]:
        counts: dict[str, dict[str, int]] = {}
        for x in self.findings():
            entry = counts.setdefault(x.rule, {"fixed": 0, "manual": 0})
            entry["fixed" if x.fixed else "manual"] += 1
        return dict(sorted(counts.items()))

    def verification_counts(self) -> dict[str, int]:
        counts = {"equal": 0, "partial": 0, "different": 0, "skipped": 0, "not-run": 0}
        for p in self.pipelines:
            counts[p.verification.status] += 1
        return counts

    # -- JSON ------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "generator": {"tool": "dali-migrate", "version": __version__},
            "paths": self.paths,
            "files": self.file_counts(),
            "per_file": [{
                "path": f.result.path, "status": f.result.status, "error": f.result.error,
                "findings": len(f.result.findings), "markers": len(f.result.manual),
                "pipelines": [p.name for p in f.pipelines],
            } for f in self.files],
            "findings_by_rule": {rid: {"name": self.rules[rid].name if rid in self.rules else "", **c}
                                 for rid, c in self.rule_counts().items()},
            "findings": [x.to_dict() for x in self.findings()],
            "verification": {
                "ran": self.verifier_used,
                "not_run_reason": None if self.verifier_used else self.not_run_reason,
                "counts": self.verification_counts(),
                "pipelines": [{**asdict(p.info), "status": p.verification.status, "reason": p.verification.reason}
                              for p in self.pipelines],
            },
            MEASURED_KEY: {
                "total_seconds": round(self.total_seconds, 4),
                "tool_speed": self.speed,
                "migration_seconds": {f.result.path: round(f.seconds, 4) for f in self.files},
                "throughput": [{"path": p.info.path, "name": p.info.name,
                                "original_samples_per_s": p.verification.throughput_original,
                                "migrated_samples_per_s": p.verification.throughput_migrated,
                                "ratio": p.verification.ratio,
                                **({"training_loop": p.verification.training_loop}
                                   if p.verification.training_loop else {})} for p in self.pipelines],
            },
        }


class Progress:
    """``[i/n] path`` on stderr: rewritten in place on a terminal, one line each when forced."""

    def __init__(self, total: int, enabled: bool | None = None, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = self.tty if enabled is None else enabled
        self.total = total
        self._width = 0

    def step(self, index: int, label: str) -> None:
        if not self.enabled:
            return
        text = f"[{index}/{self.total}] {label}"
        if self.tty:
            pad = max(0, self._width - len(text))
            self.stream.write("\r" + text + " " * pad)
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def done(self) -> None:
        """Clear the in-place line on a terminal (the caller prints its own summary)."""
        if self.enabled and self.tty and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def build_report(paths, verify_args: dict[str, dict] | None = None, progress: bool | None = None,
                 verifier: Callable[..., Any] | None | str = "auto", training_loop: dict | None = None) -> Report:
    """Migrate (in memory) and verify everything under ``paths``. ``verifier="auto"`` uses the
    harness when it is importable; pass None to skip verification, or a function to use.
    ``training_loop`` (``{"work_ms": [...]}``) also times each verified pipeline as a training loop."""
    verify_args = verify_args or {}
    not_run_reason = NOT_RUN_DISABLED
    if verifier == "auto":
        verifier = harness_verifier()
        not_run_reason = NOT_RUN_NO_HARNESS
    started = time.perf_counter()
    sources = list(iter_source_files(paths))
    meter = Progress(len(sources), progress)
    files: list[FileEntry] = []
    for i, path in enumerate(sources, 1):
        name = display_path(path)
        meter.step(i, f"migrating {name}")
        t0 = time.perf_counter()
        result = migrate_file(path, name) if path.exists() else missing_file(name)
        seconds = time.perf_counter() - t0
        pipelines = find_pipelines(result.original, name) if result.uses_dali or result.error else []
        files.append(FileEntry(result, seconds, pipelines))
    meter.done()
    from .api import share_helpers

    results = [f.result for f in files]  # the project's helper module, as migrate --write makes it
    made = share_helpers(results, paths)
    files = [FileEntry(r, f.seconds, f.pipelines) for f, r in zip(files, results)] + \
        [FileEntry(r, 0.0, []) for r in made]
    entries = []
    candidates = [(f, p) for f in files for p in f.pipelines]
    pipe_meter = Progress(len(candidates), progress)
    for i, (f, p) in enumerate(candidates, 1):
        if verifier is not None:
            pipe_meter.step(i, f"verifying {p.path}::{p.name}")
        call_args = verify_args.get(f"{p.path}::{p.name}", verify_args.get(p.name))
        entries.append(PipelineEntry(p, verify_pipeline(p, f.result, call_args, verifier, not_run_reason,
                                                        training_loop)))
    total = time.perf_counter() - started
    pipe_meter.done()
    return Report([display_path(Path(p)) for p in paths], files, entries, all_rules(), verifier is not None, total,
                  not_run_reason, speed=_tool_speed(files))


def _tool_speed(files: list[FileEntry]) -> dict | None:
    """The tool's speed on the DALI files of this run, as ``benchmarks/speed.py`` measures it: each file
    migrated again in this process (warm: the run's first file also paid for start-up, loading the op
    table and libcst's sources) next to a bare libcst round trip of the same text, interleaved."""
    import libcst as cst

    from .engine import migrate_source

    counted, bare, migrate = 0, 0.0, 0.0
    first_run = 0.0
    for f in files:
        if f.result.uses_dali and not f.result.error and not f.result.created and f.result.path.endswith(".py"):
            started = time.perf_counter()
            try:
                cst.parse_module(f.result.original).code
            except (cst.ParserSyntaxError, RecursionError):
                continue  # libcst fails on a statement the migration left out of its parse: not comparable
            bare += time.perf_counter() - started
            started = time.perf_counter()
            migrate_source(f.result.original, f.result.path)
            migrate += time.perf_counter() - started
            first_run += f.seconds
            counted += 1
    if not counted:
        return None
    return {"dali_files": counted, "migrate_seconds": round(migrate, 4), "bare_roundtrip_seconds": round(bare, 4),
            "ratio": round(migrate / bare, 3) if bare > 0 else None, "first_run_seconds": round(first_run, 4)}


# ----------------------------------------------------------------------------------- Markdown
def _md(text: str) -> str:
    return text.replace("<", "&lt;").replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Report) -> str:
    rules = report.rules
    counts = report.file_counts()
    out = ["# dali-migrate report", "",
           "The migration was run in memory over " + ", ".join(f"`{p}`" for p in report.paths)
           + "; no source was written.", "",
           "## Files", "",
           "| Files | Count |", "|---|---:|",
           f"| scanned | {counts['scanned']} |",
           f"| using DALI | {counts['using_dali']} |",
           f"| fully migrated (no markers) | {counts['fully_migrated']} |",
           f"| migrated with markers (a person must finish them) | {counts['migrated_with_markers']} |",
           f"| using DALI, nothing changed | {counts['unchanged']} |",
           f"| failed to parse or migrate (left untouched) | {counts['failed']} |",
           *([f"| created (the project's helper module) | {counts['created']} |"] if counts["created"] else []), ""]
    dali_files = [f for f in report.files if f.result.reported]
    if dali_files:
        out += ["| File | Status | Findings | Markers | Pipelines |", "|---|---|---:|---:|---|"]
        for f in dali_files:
            r = f.result
            status = r.status + (f" ({_md(r.error)})" if r.error else "")
            out.append(f"| `{r.path}` | {status} | {len(r.findings)} | {len(r.manual)} | "
                       + (", ".join(f"`{p.name}`" for p in f.pipelines) or "none") + " |")
        out.append("")

    out += ["## Findings by rule", "", f"![Findings by rule]({FINDINGS_PLOT})", ""]
    rule_counts = report.rule_counts()
    if rule_counts:
        out += ["| Rule | Name | Fix | Fixed | For a person |", "|---|---|---|---:|---:|"]
        for rid, c in rule_counts.items():
            r = rules.get(rid)
            out.append(f"| {rid} | {r.name if r else '?'} | {r.fix if r else '?'} | {c['fixed']} | {c['manual']} |")
        out.append("")
    else:
        out += ["No findings.", ""]
    manual = [x for f in report.files for x in f.result.manual]  # a file with an error is reported as failed
    if manual:
        out += [f"### Spots for a person ({len(manual)})", ""]
        for x in manual:
            hint = f" Suggestion: {_md(x.suggestion)}" if x.suggestion else ""
            cell = f":cell[{x.cell}]" if x.cell is not None else ""
            out.append(f"- `{x.path}{cell}:{x.line}` **{x.rule}** {_md(x.message)}.{hint}")
        out.append("")

    out += ["## Verification", ""]
    v = report.verification_counts()
    if not report.pipelines:
        out += ["No pipelines found.", ""]
    else:
        if not report.verifier_used:
            out += [f"**{report.not_run_reason}.** No pipeline was run, so nothing here says whether the migrated "
                    "code computes the same outputs.", ""]
        out += [f"{len(report.pipelines)} pipelines: {v['equal']} equal, {v['partial']} equal where compared "
                f"(random outputs not compared), {v['different']} different, "
                f"{v['skipped']} skipped, {v['not-run']} not run.", "",
                "| Pipeline | Style | Result | Why |", "|---|---|---|---|"]
        for p in report.pipelines:
            out.append(f"| `{p.info.path}::{p.info.name}` (line {p.info.line}) | {STYLE_WORDS[p.info.style]} | "
                       f"{p.verification.status} | {_md(p.verification.reason)} |")
        out.append("")

    out += [MEASURED_HEADING, "",
            "Timings and throughput differ from run to run; the golden tests do not compare this section.", "",
            "### Throughput", "", f"![Throughput, original vs migrated]({THROUGHPUT_PLOT})", ""]
    measured = [p for p in report.pipelines if p.verification.throughput_original is not None
                or p.verification.throughput_migrated is not None]
    if measured:
        out += ["| Pipeline | Original (samples/s) | Migrated (samples/s) | Ratio |", "|---|---:|---:|---:|"]
        for p in measured:
            t = p.verification
            ratio = f"{t.ratio:.2f}×" if t.ratio is not None else "n/a"
            out.append(f"| `{p.info.path}::{p.info.name}` | {_num(t.throughput_original)} | "
                       f"{_num(t.throughput_migrated)} | {ratio} |")
        out.append("")
    else:
        out += ["No throughput was measured" + (f" ({report.not_run_reason})." if not report.verifier_used
                                                 else "."), ""]
    out += _training_loop_section(report)
    out += ["### Migration time", "", f"Total: {report.total_seconds:.3f} s for {plural(len(report.files), 'file')}.", ""]
    if report.speed:
        sp = report.speed
        out += [f"Tool speed: migrating the {sp['dali_files']} DALI files took {sp['migrate_seconds']:.3f} s, "
                f"a bare libcst parse-and-print of them {sp['bare_roundtrip_seconds']:.3f} s: "
                f"**{sp['ratio']:.2f}×** (both measured again after the run, in one process; the run itself "
                f"took {sp['first_run_seconds']:.3f} s for them, start-up included; `benchmarks/speed.py` "
                f"measures this on a larger corpus).", ""]
    out += ["| File | Seconds |", "|---|---:|"]
    for f in sorted(report.files, key=lambda f: -f.seconds):
        out.append(f"| `{f.result.path}` | {f.seconds:.4f} |")
    return "\n".join(out).rstrip("\n") + "\n"


def _num(value) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


# ----------------------------------------------------------------------------------- plots
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


_FIXED, _MANUAL, _ORIG, _MIGR = "#4c9f70", "#e3a21a", "#8c96a8", "#3b6fb6"


def plot_findings(report: Report, path: Path) -> None:
    plt = _pyplot()
    counts = report.rule_counts()
    rows = list(reversed(list(counts.items())))  # first rule on top
    fig, ax = plt.subplots(figsize=(8, max(2.4, 0.5 * len(rows) + 1.4)), dpi=110)
    if not rows:
        ax.text(0.5, 0.5, "No findings", ha="center", va="center", fontsize=14, color="#59636e")
        ax.set_axis_off()
    else:
        labels = [f"{rid} {report.rules[rid].name}" if rid in report.rules else rid for rid, _ in rows]
        fixed = [c["fixed"] for _, c in rows]
        manual = [c["manual"] for _, c in rows]
        y = range(len(rows))
        ax.barh(y, fixed, color=_FIXED, label="fixed by the tool")
        ax.barh(y, manual, left=fixed, color=_MANUAL, label="left for a person (marker)")
        for i, (f, m) in enumerate(zip(fixed, manual)):
            ax.text(f + m, i, f"  {f + m}", va="center", fontsize=9)
        ax.set_yticks(list(y), labels)
        ax.set_xlabel("findings")
        ax.set_xlim(0, max(f + m for f, m in zip(fixed, manual)) * 1.15 + 0.5)
        ax.spines[["top", "right"]].set_visible(False)
        ax.legend(loc="lower right", frameon=False, fontsize=9)
    total = sum(c["fixed"] + c["manual"] for c in counts.values())
    manual = sum(c["manual"] for c in counts.values())
    ax.set_title("Findings by rule", loc="left", fontsize=12, fontweight="bold")
    if counts:
        ax.set_title(f"{total} findings, {manual} left for a person", loc="right", fontsize=9, color="#59636e")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def _training_loop_section(report: Report) -> list[str]:
    """Per pipeline and consumer work time: samples/s of both sides in a training loop (``--consumer-ms``)."""
    looped = [p for p in report.pipelines if p.verification.training_loop]
    if not looped:
        return []
    first = looped[0].verification.training_loop
    out = ["### Training loop", "",
           f"Each step converts every output ({first['consumer']}) and then works S ms, like a training step that "
           f"leaves the CPU free; median samples/s of {first['runs']} alternating runs per side, each in its own "
           f"process; ratios are migrated / original, of wall-clock and of process CPU time.", "",
           "| Pipeline | S (ms) | Original (samples/s) | Migrated (samples/s) | Ratio | Per CPU-second |",
           "|---|---:|---:|---:|---:|---:|"]
    for p in looped:
        for row in p.verification.training_loop["work_ms"]:
            out.append(f"| `{p.info.path}::{p.info.name}` | {row['work_ms']:g} | {_num(row['original']['median'])} | "
                       f"{_num(row['migrated']['median'])} | {row['ratios']['migrated']:.2f}× | "
                       f"{row['cpu_ratios']['migrated']:.2f}× |")
    return out + [""]


def plot_throughput(report: Report, path: Path) -> None:
    plt = _pyplot()
    measured = [p for p in report.pipelines if p.verification.throughput_original is not None
                and p.verification.throughput_migrated is not None]
    fig, ax = plt.subplots(figsize=(8, max(2.6, 0.8 * len(measured) + 1.4)), dpi=110)
    ax.set_title("Throughput per pipeline: original vs migrated", loc="left", fontsize=12, fontweight="bold")
    if not measured:
        why = report.not_run_reason if not report.verifier_used else \
            "no pipeline could be run (see the verification table)"
        ax.text(0.5, 0.58, "No verification data", ha="center", va="center", fontsize=16, color="#59636e",
                fontweight="bold", transform=ax.transAxes)
        ax.text(0.5, 0.38, why + f"\n{len(report.pipelines)} pipelines found", ha="center", va="center",
                fontsize=10, color="#59636e", transform=ax.transAxes)
        ax.set_axis_off()
    else:
        rows = list(reversed(measured))
        height = 0.38
        y = list(range(len(rows)))
        orig = [p.verification.throughput_original for p in rows]
        migr = [p.verification.throughput_migrated for p in rows]
        ax.barh([i + height / 2 for i in y], orig, height, color=_ORIG, label="original (pipeline mode)")
        ax.barh([i - height / 2 for i in y], migr, height, color=_MIGR, label="migrated (dynamic mode)")
        top = max(orig + migr)
        for i, p in enumerate(rows):
            ratio, status = p.verification.ratio, p.verification.status
            label = (f"{ratio:.2f}×" if ratio is not None else "") + f"  {status}"
            ax.text(max(orig[i], migr[i]) + top * 0.02, i, label, va="center", fontsize=10,
                    color="#b42318" if status == "different" else "#1f2328")
        ax.set_yticks(y, [f"{p.info.name}\n{p.info.path}" for p in rows], fontsize=9)
        ax.set_xlabel("samples per second (higher is better)")
        ax.set_xlim(0, top * 1.3)
        ax.spines[["top", "right"]].set_visible(False)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, frameon=False, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def write_report(report: Report, out_dir: Path, plots: bool = True) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "report.md", out_dir / "report.json"]
    written[0].write_text(to_markdown(report), encoding="utf-8")
    written[1].write_text(json.dumps(report.to_dict(), indent=2, sort_keys=False) + "\n", encoding="utf-8")
    if plots:
        plot_findings(report, out_dir / FINDINGS_PLOT)
        plot_throughput(report, out_dir / THROUGHPUT_PLOT)
        written += [out_dir / FINDINGS_PLOT, out_dir / THROUGHPUT_PLOT]
    return written


def strip_measured(markdown: str | None = None, data: dict | None = None):
    """The parts of a report that are the same from run to run (what the golden tests compare)."""
    if markdown is not None:
        return markdown.split(MEASURED_HEADING, 1)[0]
    data = dict(data or {})
    data.pop(MEASURED_KEY, None)
    data.pop("generator", None)
    return data

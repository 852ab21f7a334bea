"""``verify``: run a pipeline-mode pipeline and its dynamic-mode migration side by side, and compare.

Order of work (each step's reason in a comment where it matters):
1. Read the original; take the migrated text from a file or migrate on the fly.
2. Without a GPU, map GPU devices to CPU in both texts and in the arguments (``devices``).
3. Load the migrated module and run N iterations, recording each random-op state (``randomness``).
4. Load the original module with DALI's graph construction hooked (random ops get their state fed
   from the recording; shuffled readers without a seed get the pipeline seed), build, run N.
5. Compare per output and sample; outputs that depend on random ops that could not be lined up
   are skipped with the reason. Optionally measure throughput on fresh, unhooked instances.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..findings import Finding, rule
from . import compare as cmp
from .devices import DeviceMapping, cuda_device_count, map_call_arguments, map_devices_to_cpu
from .loading import HarnessError, load_module, module_level_names, output_names, still_pipeline_mode
from .randomness import PipelineHooks, StateRecorder, random_dependencies
from .sides import NotMigrated, built_for_timing, migrated_iterator, original_pipeline

OUTPUTS_DIFFER = rule(
    "DM401", "outputs-differ", "error",
    "An output of the migrated code differs from the original pipeline's (kind, batch size, device, layout, "
    "dtype, shape or values), at the iteration, output and sample named.",
    "A migration must compute the same thing; the harness ran both and they disagree.",
    before="# original.py\nimages = fn.resize(images, size=(24, 24))\n# migrated.py\n"
           "images = ndd.resize(images, size=(32, 24))",
    after="output 0 (images): DIFFERENT (40 samples)\n"
          "  iteration 0, output 0 (images), sample 0: shape differs: original (24, 24, 3), migrated (24, 32, 3)",
    fix="manual", suggestion="Look at the named output and sample; compare the two files' code for it.")
OUTPUT_SKIPPED = rule(
    "DM402", "output-not-compared", "warning",
    "An output depends on random operators whose random numbers could not be lined up between the two "
    "modes; its values were not compared (batch size, dtype, ndim and layout were).",
    "Pipeline mode and dynamic mode draw different numbers from the same seed; comparing such values "
    "would fail honest migrations or pass broken ones by chance.",
    before="# original.py: two random ops\nangle = fn.random.uniform(range=(-10, 10))\n"
           "flip = fn.random.coin_flip()\n# migrated.py: the same ops, drawn in the other order\n"
           "flip = ndd.random.coin_flip(batch_size=batch_size)\n"
           "angle = ndd.random.uniform(range=(-10, 10), batch_size=batch_size)",
    after="output 0 (images): SKIPPED - depends on random ops random.Uniform, random.CoinFlip whose random "
          "states could not be lined up; batch size, dtype, ndim and layout compared",
    fix="manual", suggestion="Keep the random ops in the same order and count as the pipeline defines them, "
    "or check the output's distribution by hand.")
DEVICE_MAPPED = rule(
    "DM403", "device-mapped-to-cpu", "info",
    "No GPU here: a GPU device request was mapped to the CPU on both sides before running.",
    "The verdict then covers the CPU operators, not the GPU kernels; run the check again on a GPU machine.",
    before='images = fn.decoders.image(jpegs, device="mixed")  # original.py, on a machine without a GPU',
    after="devices: no GPU (CUDA devices: 0); GPU requests mapped to cpu on both sides:\n"
          "  original.py:8: device=\"mixed\" -> \"cpu\"")
NOT_MIGRATED = rule(
    "DM404", "not-migrated", "error",
    "The migrated name still builds a pipeline-mode Pipeline, or does not yield batches; it cannot be verified.",
    "The harness runs the migrated code as an iterable of output tuples (the unrolled shape).",
    before="# migrated.py still says\n@pipeline_def(batch_size=4)\ndef pipe(root): ...",
    after="verdict: NOT VERIFIABLE: migrated.py: pipe is still a pipeline-mode Pipeline; it has not been "
          "unrolled into dynamic-mode code",
    fix="manual", suggestion="Finish the migration of this pipeline (or pass --migrated with a migrated file).")
RUN_FAILED = rule(
    "DM405", "run-failed", "error",
    "Building or running one side raised an exception.",
    "Code that crashes does not compute the same thing; the message names the side and iteration.",
    before="# migrated.py\nimages = ndd.resize(images, size=(24, 24), name=\"resize\")",
    after="error: migrated side, iteration 0: TypeError: resize() got an unexpected keyword argument 'name'",
    fix="manual", suggestion="Read the error: it names the side, the iteration and the line; fix that code "
    "(often a pipeline-only argument or a marker left unhandled) and verify again.")
READER_SEEDED = rule(
    "DM406", "reader-seed-normalized", "info",
    "A shuffling reader without seed= got the pipeline seed on the original side, the seed the migration "
    "gives the dynamic-mode reader.",
    "Pipeline mode derives the reader's shuffle seed from the pipeline seed in C++; dynamic mode cannot "
    "reproduce that order, so the comparison uses the order both modes can produce.",
    before="@pipeline_def(batch_size=4, seed=7)\ndef pipe(root):\n"
           "    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)",
    after="note: original.py:3: the shuffling reader got seed=7 (the pipeline seed), as the migration gives "
          "ndd.readers.File; compared in that order")


@dataclass
class OutputResult:
    index: int
    name: str
    status: str = "equal"  # equal | different | skipped
    random_ops: list[str] = field(default_factory=list)
    random_handling: str = ""  # "" | "fed" (bitwise comparable) | "skipped"
    reason: str = ""
    stats: cmp.OutputStats = field(default_factory=cmp.OutputStats)
    mismatches: list[cmp.Mismatch] = field(default_factory=list)
    original_device: str = ""
    migrated_device: str = ""

    def to_dict(self, limit: int = 20) -> dict:
        return {
            "index": self.index, "name": self.name, "status": self.status,
            "random_ops": self.random_ops, "random_handling": self.random_handling, "reason": self.reason,
            "devices": {"original": self.original_device, "migrated": self.migrated_device},
            "samples_compared": self.stats.samples_compared, "samples_different": self.stats.samples_different,
            "exact": self.stats.exact if self.status != "skipped" else None,
            "max_abs_error": self.stats.max_abs_error, "max_rel_error": self.stats.max_rel_error,
            "mismatch_count": len(self.mismatches),
            "mismatches": [m.to_dict() for m in self.mismatches[:limit]],
        }


@dataclass
class VerifyReport:
    original: str
    migrated: str
    pipeline: str
    iterations: int
    tolerance: cmp.Tolerance
    verdict: str = "equal"  # equal | partial | different | failed | incomplete
    styles: dict = field(default_factory=dict)
    outputs: list[OutputResult] = field(default_factory=list)
    arity: dict = field(default_factory=dict)
    devices: dict = field(default_factory=dict)
    device_mappings: list[DeviceMapping] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""
    migrated_on_the_fly: bool = False
    migration_findings: list[dict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    throughput: Any = None
    training_loop: Any = None  # training_loop.TrainingLoop: a consumer that works between batches

    @property
    def equal(self) -> bool:
        return self.verdict == "equal"

    @property
    def exit_code(self) -> int:
        return 0 if self.equal else 1

    @property
    def skipped(self) -> list[OutputResult]:
        return [o for o in self.outputs if o.status == "skipped"]

    @property
    def different(self) -> list[OutputResult]:
        return [o for o in self.outputs if o.status == "different"]

    def to_dict(self) -> dict:
        return {
            "tool": "dali-migrate verify",
            "original": self.original, "migrated": self.migrated, "pipeline": self.pipeline,
            "migrated_on_the_fly": self.migrated_on_the_fly,
            "styles": self.styles,
            "verdict": self.verdict, "equal": self.equal, "error": self.error or None,
            "iterations": self.iterations, "tolerance": self.tolerance.to_dict(),
            "arity": self.arity,
            "outputs": [o.to_dict() for o in self.outputs],
            "skipped": [{"index": o.index, "name": o.name, "reason": o.reason} for o in self.skipped],
            "devices": {**self.devices, "mappings": [m.to_dict() for m in self.device_mappings]},
            "notes": self.notes,
            "throughput": self.throughput.to_dict() if self.throughput else None,
            "training_loop": self.training_loop.to_dict() if self.training_loop else None,
            "migration_findings": self.migration_findings,
            "findings": [f.to_dict() for f in self.findings],
            "exit_code": self.exit_code,
        }

    def format(self) -> str:
        lines = [f"dali-migrate verify: {self.pipeline} in {self.original} vs {self.migrated}"
                 f"{' (migrated on the fly)' if self.migrated_on_the_fly else ''}"]
        dev = self.devices
        if dev.get("mapped_to_cpu"):
            if self.device_mappings:
                lines.append(f"devices: no GPU (CUDA devices: {dev.get('cuda_devices', 0)}); GPU requests mapped "
                             f"to cpu on both sides:")
                lines += [f"  {m.format()}" for m in self.device_mappings]
            else:
                lines.append(f"devices: no GPU (CUDA devices: {dev.get('cuda_devices', 0)}); "
                             f"everything already runs on cpu")
        else:
            lines.append(f"devices: as written (CUDA devices: {dev.get('cuda_devices', 0)})")
        for note in self.notes:
            lines.append(f"note: {note}")
        if self.error:
            lines.append(f"error: {self.error}")
        for o in self.outputs:
            head = f"output {o.index} ({o.name}): {o.status.upper()}"
            if o.status == "skipped":
                lines.append(f"{head} - {o.reason}")
                continue
            s = o.stats
            extra = f"{s.samples_compared} samples"
            if s.float_compared:
                extra += f", max abs error {s.max_abs_error:.3g}, max rel error {s.max_rel_error:.3g}"
            extra += ", bitwise equal" if s.exact else ""
            if o.random_handling == "fed":
                extra += f"; random ops {', '.join(o.random_ops)} fed the migrated side's random states"
            lines.append(f"{head} ({extra})")
            for m in o.mismatches[:5]:
                lines.append(f"  {m.format()}")
            if len(o.mismatches) > 5:
                lines.append(f"  ... {len(o.mismatches) - 5} more")
        if self.throughput:
            lines.append(self.throughput.format())
        if self.training_loop:
            lines.append(self.training_loop.format())
        summary = {"equal": "EQUAL", "partial": "EQUAL WHERE COMPARED (some outputs skipped)",
                   "different": "DIFFERENT", "failed": "FAILED", "incomplete": "NOT VERIFIABLE"}[self.verdict]
        lines.append(f"verdict: {summary} over {self.iterations} iterations (tolerance atol={self.tolerance.atol:g}, "
                     f"rtol={self.tolerance.rtol:g})")
        return "\n".join(lines)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise HarnessError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise HarnessError(f"{path}: not UTF-8") from None


def _as_tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class _SideFailed(Exception):
    def __init__(self, side: str, stage: str, error: BaseException, path: str):
        cause = error.__cause__ if error.__cause__ is not None else None
        where = ""
        for frame in reversed(traceback.extract_tb(error.__traceback__)):
            if frame.filename == path:
                where = f" (line {frame.lineno})"
                break
        message = f"{side} side failed while {stage}: {type(error).__name__}: {error}{where}"
        if cause is not None and str(cause) not in str(error):
            message += f" (cause: {type(cause).__name__}: {cause})"
        super().__init__(message)


def verify(original_path: str, pipeline: str, migrated_path: str | None = None, *, args: list | None = None,
           kwargs: dict | None = None, iterations: int = 5, tolerance: cmp.Tolerance | None = None,
           throughput: bool = False, warmup: int = 3, timing_iterations: int = 20, repeats: int = 5,
           force_cpu: bool | None = None, feed_random: bool = True,
           training_loop: dict | None = None) -> VerifyReport:
    """Verify that the migrated ``pipeline`` computes what the original does. See the module docstring."""
    return verify_sources(_read(original_path), original_path, pipeline,
                          _read(migrated_path) if migrated_path else None, migrated_path, args=args, kwargs=kwargs,
                          iterations=iterations, tolerance=tolerance, throughput=throughput, warmup=warmup,
                          timing_iterations=timing_iterations, repeats=repeats, force_cpu=force_cpu,
                          feed_random=feed_random, training_loop=training_loop)


def _check_pipeline_name(source: str, path: str, name: str) -> None:
    """A NAME the original file does not define at module level is a usage error before anything runs: it
    names the user's file (not the migration kept in memory) and the pipelines that file defines (not its
    other functions and classes)."""
    defined = module_level_names(source)
    if defined is None or name in defined:
        return
    from ..pipeline_defs import find_pipelines

    pipelines = [p.name for p in find_pipelines(source, path) if p.name in defined]
    listed = f"; its pipelines: {', '.join(dict.fromkeys(pipelines))}" if pipelines else \
        "; it defines no pipeline at module level (a @pipeline_def function, a Pipeline subclass, a Pipeline " \
        "object or a function that builds one)"
    raise HarnessError(f"{path}: no pipeline named {name!r}{listed}")


def verify_sources(original_text: str, original_path: str, pipeline: str, migrated_text: str | None = None,
                   migrated_path: str | None = None, *, args: list | None = None, kwargs: dict | None = None,
                   iterations: int = 5, tolerance: cmp.Tolerance | None = None, throughput: bool = False,
                   warmup: int = 3, timing_iterations: int = 20, repeats: int = 5, force_cpu: bool | None = None,
                   feed_random: bool = True, training_loop: dict | None = None) -> VerifyReport:
    """``verify`` on texts already in memory; ``original_path`` is where the original lives (its folder is
    the module's folder when loaded). Without ``migrated_text`` the original is migrated on the fly.
    ``training_loop`` (keyword arguments of ``training_loop.measure_training_loop``: ``work_ms``, ``runs``,
    ``consumer``, ...) also times both as a training loop, each side in its own processes."""
    args, kwargs = list(args or []), dict(kwargs or {})
    tolerance = tolerance or cmp.Tolerance()
    if iterations < 1:
        raise HarnessError("--iterations must be at least 1")
    report = VerifyReport(original=original_path, migrated=migrated_path or "", pipeline=pipeline,
                          iterations=iterations, tolerance=tolerance)
    if migrated_text is not None:
        migrated_load_path = migrated_path or str(Path(original_path).with_suffix(".migrated.py"))
    else:
        from ..engine import migrate_source

        result = migrate_source(original_text, original_path)
        if result.error:
            raise HarnessError(f"{original_path}: migration failed: {result.error}")
        migrated_text = result.migrated
        migrated_load_path = str(Path(original_path).with_suffix(".migrated.py"))
        report.migrated = f"{migrated_load_path} (in memory)"
        report.migrated_on_the_fly = True
        report.migration_findings = [f.to_dict() for f in result.findings]

    # -- devices
    count = cuda_device_count()
    to_cpu = (count == 0) if force_cpu is None else force_cpu
    report.devices = {"cuda_devices": count, "gpu_available": count > 0, "mapped_to_cpu": to_cpu}
    if to_cpu:
        original_text, m1 = map_devices_to_cpu(original_text, "original")
        migrated_text, m2 = map_devices_to_cpu(migrated_text, "migrated")
        args, kwargs, m3 = map_call_arguments(args, kwargs)
        report.device_mappings += m1 + m2 + m3
        for m in report.device_mappings:
            report.findings.append(Finding(DEVICE_MAPPED.id, m.format(), path=original_path if m.side == "original"
                                           else migrated_load_path, line=m.line))

    names = output_names(original_text, pipeline)

    # -- migrated side: run and record random states
    unmigrated = still_pipeline_mode(migrated_text, pipeline)
    if unmigrated:
        return _finish_incomplete(report, f"{migrated_load_path}: {unmigrated}; it has not been unrolled into "
                                  f"dynamic-mode code", migrated_load_path)
    recorder = StateRecorder()
    migrated_out: list[list[cmp.Snapshot]] = []
    stage = "creating it"
    try:
        with recorder.recording():
            migrated_module = load_module(migrated_text, migrated_load_path, "migrated")
            # Once the module has loaded (its top-level code runs, whatever the name), so that a slow or
            # failing module is reported as such; then a name the user's file lacks is said in its terms.
            _check_pipeline_name(original_text, original_path, pipeline)
            iterator, report.styles["migrated"] = migrated_iterator(migrated_module, pipeline,
                                                                     migrated_load_path, args, kwargs)
            for i in range(iterations):
                recorder.start_iteration()
                stage = f"producing iteration {i}"
                outs = _as_tuple(next(iterator))
                stage = f"reading the outputs of iteration {i}"
                migrated_out.append([cmp.snapshot_migrated_output(o) for o in outs])
    except NotMigrated as e:
        return _finish_incomplete(report, str(e), migrated_load_path)
    except StopIteration:
        return _finish_failed(report, f"migrated side stopped after {len(migrated_out)} iterations "
                              f"(the original runs forever: pipe.run() crosses epochs)", migrated_load_path)
    except HarnessError:
        raise
    except Exception as e:  # the migrated code crashed: not the same computation
        return _finish_failed(report, str(_SideFailed("migrated", stage, e, migrated_load_path)), migrated_load_path)

    _close(iterator)  # a suspended capture-mode loop blocks any other one ("only one ... at a time")

    # -- original side, with graph construction hooked
    hooks = PipelineHooks(recorder)
    original_out: list[list[cmp.Snapshot]] = []
    stage = "loading"
    try:
        with hooks.installed(feed_random_states=feed_random):
            original_module = load_module(original_text, original_path, "original")
            pipe, report.styles["original"] = original_pipeline(original_module, pipeline, original_path, args,
                                                                 kwargs, report)
            stage = "building"
            pipe.build()
        misalignment = hooks.align(iterations) if feed_random else "feeding random states was turned off"
        for i in range(iterations):
            stage = f"running iteration {i}"
            original_out.append([cmp.snapshot_pipeline_output(t) for t in pipe.run()])
        dependencies = random_dependencies(pipe)
    except HarnessError:
        raise
    except Exception as e:
        return _finish_failed(report, str(_SideFailed("original", stage, e, original_path)), original_path)

    if (args or kwargs) and "object" in report.styles.values():
        report.notes.append("--args were not used on the side(s) where the name is a module-level object: "
                            + ", ".join(side for side, style in report.styles.items() if style == "object"))
    for note in hooks.reader_seeds:
        report.notes.append(note.format())
        report.findings.append(Finding(READER_SEEDED.id, note.format(), path=original_path))
    if misalignment and any(dependencies):
        report.notes.append(f"random ops not lined up: {misalignment}")

    _compare_all(report, original_out, migrated_out, names, dependencies, misalignment, tolerance,
                 original_path, migrated_load_path)
    del pipe

    if throughput:
        report.throughput = _measure(original_text, original_path, migrated_text, migrated_load_path, pipeline,
                                     args, kwargs, warmup, timing_iterations, repeats)
    if training_loop is not None:
        from .training_loop import TrainingLoopError, measure_training_loop

        sides = {"original": (original_text, original_path), "migrated": (migrated_text, migrated_load_path)}
        try:
            report.training_loop = measure_training_loop(sides, pipeline, args, kwargs, **training_loop)
        except TrainingLoopError as e:
            report.notes.append(f"the training-loop measurement failed: {e}")
    return report


def _compare_all(report, original_out, migrated_out, names, dependencies, misalignment, tolerance,
                 original_path, migrated_path) -> None:
    n_orig = len(original_out[0]) if original_out else 0
    n_mig = {len(x) for x in migrated_out}
    report.arity = {"original": n_orig, "migrated": sorted(n_mig)[0] if len(n_mig) == 1 else sorted(n_mig)}
    n = max([n_orig, *n_mig]) if n_mig else n_orig
    for k in range(n):
        name = names[k] if k < len(names) and names[k] else f"output{k}"
        result = OutputResult(k, name, random_ops=dependencies[k] if k < len(dependencies) else [])
        compare_values = True
        if result.random_ops:
            if misalignment:
                compare_values = False
                result.status = "skipped"
                result.random_handling = "skipped"
                result.reason = (f"depends on random ops {', '.join(result.random_ops)}, whose random numbers could "
                                 f"not be lined up ({misalignment}); values not compared, only batch size, dtype, "
                                 f"ndim and layout")
            else:
                result.random_handling = "fed"
        for i in range(len(original_out)):
            orig = original_out[i][k] if k < len(original_out[i]) else None
            mig = migrated_out[i][k] if k < len(migrated_out[i]) else None
            if orig is None or mig is None:
                result.mismatches.append(cmp.Mismatch(i, k, name, None, "missing",
                                                      "present" if orig else "absent",
                                                      "present" if mig else "absent",
                                                      f"the original yields {n_orig} outputs, the migrated "
                                                      f"{len(migrated_out[i])}"))
                continue
            result.original_device, result.migrated_device = orig.device, mig.device
            result.mismatches += cmp.compare_output(i, k, name, orig, mig, tolerance, result.stats,
                                                    values=compare_values)
        if result.mismatches:
            result.status = "different"
            first = result.mismatches[0]
            report.findings.append(Finding(OUTPUTS_DIFFER.id, first.format(), path=migrated_path,
                                           fixed=False, extra={"mismatches": len(result.mismatches)}))
        elif result.status == "skipped":
            report.findings.append(Finding(OUTPUT_SKIPPED.id, f"output {k} ({name}): {result.reason}",
                                           path=original_path, fixed=False))
        report.outputs.append(result)
    if any(o.status == "different" for o in report.outputs):
        report.verdict = "different"
    elif any(o.status == "skipped" for o in report.outputs):
        report.verdict = "partial"
    else:
        report.verdict = "equal"


def _close(iterator) -> None:
    close = getattr(iterator, "close", None)
    if close is not None:
        try:
            close()
        except Exception:  # closing is cleanup; a failure here says nothing about equality
            pass


def _finish_failed(report: VerifyReport, message: str, path: str) -> VerifyReport:
    report.verdict = "failed"
    report.error = message
    report.findings.append(Finding(RUN_FAILED.id, message, path=path, fixed=False))
    return report


def _finish_incomplete(report: VerifyReport, message: str, path: str) -> VerifyReport:
    report.verdict = "incomplete"
    report.error = message
    report.findings.append(Finding(NOT_MIGRATED.id, message, path=path, fixed=False))
    return report


def _measure(original_text, original_path, migrated_text, migrated_path, pipeline, args, kwargs, warmup,
             timing_iterations, repeats):
    """Time fresh instances, loaded without the harness's hooks: the code as the user runs it."""
    from .throughput import measure, migrated_stepper, pipeline_stepper

    original_module = load_module(original_text, original_path, "original")
    pipe = built_for_timing(original_module, pipeline, original_path, args, kwargs)
    migrated_module = load_module(migrated_text, migrated_path, "migrated")
    iterator, _ = migrated_iterator(migrated_module, pipeline, migrated_path, args, kwargs)
    try:
        return measure(pipeline_stepper(pipe), migrated_stepper(iterator), warmup=warmup,
                       iterations=timing_iterations, repeats=repeats)
    finally:
        _close(iterator)


__all__ = ["verify", "VerifyReport", "OutputResult", "HarnessError"]


def verify_pipeline(original_source: str, migrated_source: str, *, path: str, name: str, args=None, kwargs=None,
                    iterations: int = 5, throughput: bool = True, training_loop: dict | None = None) -> dict:
    """The report's entry point: verify one pipeline and summarise it as
    ``{"status": equal|partial|different|failed|incomplete, "reason", "throughput_original",
    "throughput_migrated", "report": VerifyReport.to_dict()}``."""
    report = verify_sources(original_source, path, name, migrated_source,
                            str(Path(path).with_suffix(".migrated.py")), args=args, kwargs=kwargs,
                            iterations=iterations, throughput=throughput, repeats=3, timing_iterations=10,
                            training_loop=training_loop)
    reasons = []
    if report.error:
        reasons.append(report.error)
    for o in report.different:
        first = o.mismatches[0].format() if o.mismatches else "values differ"
        reasons.append(f"output {o.index} ({o.name}) differs: {first}")
    for o in report.skipped:
        reasons.append(f"output {o.index} ({o.name}) not compared: {o.reason}")
    if report.devices.get("mapped_to_cpu") and report.device_mappings:
        reasons.append("GPU devices mapped to cpu on both sides (no GPU here)")
    t = report.throughput
    return {
        "status": report.verdict,
        "reason": "; ".join(reasons) or f"all outputs equal over {report.iterations} iterations",
        "throughput_original": t.original.median if t else None,
        "throughput_migrated": t.migrated.median if t else None,
        "training_loop": report.training_loop.to_dict() if report.training_loop else None,
        "report": report.to_dict(),
    }

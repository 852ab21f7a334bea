"""The migration report: golden report.md / report.json for the bundled example repo (measured
parts stripped: timings and throughput live under ``MEASURED_HEADING`` / ``"measured"``), the
counts, the verification call site, the plots, progress and the CLI.

Regenerate the goldens after an intended change (the unroll pass and the harness will change
them): ``DALI_MIGRATE_REGEN=1 python -m pytest tests/test_report.py`` and read the diff.
"""

import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image

from dali_migrate.cli import main
from dali_migrate.report import (MEASURED_HEADING, MEASURED_KEY, NOT_RUN_DISABLED, NOT_RUN_NO_HARNESS, Progress,
                                 build_report, harness_verifier, strip_measured, to_markdown, write_report)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/repo"
GOLDEN = ROOT / "golden" / "report"


@pytest.fixture(scope="module")
def example_report():
    cwd = os.getcwd()
    os.chdir(ROOT)  # paths in the report are relative to the working directory
    try:
        yield build_report([EXAMPLE], progress=False)
    finally:
        os.chdir(cwd)


def _check_golden(name: str, text: str):
    path = GOLDEN / name
    if os.environ.get("DALI_MIGRATE_REGEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{path} differs (DALI_MIGRATE_REGEN=1 to regenerate)"


def test_golden_outputs(example_report, tmp_path):
    write_report(example_report, tmp_path, plots=False)
    markdown = (tmp_path / "report.md").read_text()
    data = json.loads((tmp_path / "report.json").read_text())
    assert MEASURED_HEADING in markdown and MEASURED_KEY in data  # the measured parts exist...
    _check_golden("report.md", strip_measured(markdown=markdown))  # ...and are not compared
    _check_golden("report.json", json.dumps(strip_measured(data=data), indent=2) + "\n")
    compared = strip_measured(markdown=markdown) + json.dumps(strip_measured(data=data))
    assert str(ROOT) not in compared and " s for " not in compared and "seconds" not in compared


def test_counts_and_all_four_styles(example_report):
    counts = example_report.file_counts()
    assert counts["scanned"] == 8  # 6 loaders/ files + train.py + utils.py
    assert counts["using_dali"] == 5
    assert counts["using_dali"] == (counts["fully_migrated"] + counts["migrated_with_markers"]
                                    + counts["unchanged"] + counts["failed"] - 0)
    assert counts["failed"] == 0
    styles = {(p.info.path.rsplit("/", 1)[-1], p.info.name, p.info.style) for p in example_report.pipelines}
    assert styles == {
        ("decorated.py", "decorated_pipe", "pipeline_def"),
        ("with_block.py", "with_block_pipe", "with-block"),
        ("subclass.py", "SubclassPipe", "subclass"),
        ("legacy_ops.py", "LegacyOpsPipe", "legacy-ops"),
        ("augment.py", "augment_pipe", "pipeline_def"),
    }
    by_rule = example_report.rule_counts()
    assert by_rule["DM214"]["manual"] >= 1  # the pipe.serialize() marker
    assert sum(c["fixed"] + c["manual"] for c in by_rule.values()) == len(example_report.findings())
    # Every marker is in the report's list of spots for a person.
    markdown = to_markdown(example_report)
    for x in example_report.findings():
        if not x.fixed:
            assert f"`{x.path}:{x.line}` **{x.rule}**" in markdown


def test_verification_is_never_invented(example_report):
    statuses = {p.verification.status for p in example_report.pipelines}
    if harness_verifier() is None:
        assert statuses == {"not-run"}
        assert all(p.verification.reason == NOT_RUN_NO_HARNESS for p in example_report.pipelines)
        assert f"**{NOT_RUN_NO_HARNESS}.**" in to_markdown(example_report)
        assert all(p.verification.throughput_original is None for p in example_report.pipelines)
    else:
        assert "not-run" not in statuses


INPUTLESS = '''import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def noise(size=8):
    return fn.random.uniform(range=[0, 1], shape=[size])


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def needs_root(root):
    return fn.random.uniform(range=[0, 1], shape=[2])
'''


def test_verifier_call_site(tmp_path, monkeypatch):
    """The report passes the sources, name and arguments to the verifier and reports what it says.
    The verifier here is a stand-in for the harness's interface (no DALI is run, no claim is made)."""
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(INPUTLESS)
    Path("bad.py").write_text("import nvidia.dali.fn as fn\ndef broken(:\n")
    calls = []

    def stand_in(original, migrated, *, path, name, args, kwargs):
        calls.append((path, name, args, kwargs))
        assert "fn.random.uniform" in original and "ndd.random.uniform" in migrated
        if name == "needs_root":
            raise RuntimeError("boom")
        return {"status": "equal", "reason": "", "throughput_original": 200.0, "throughput_migrated": 100.0}

    report = build_report(["."], {"a.py::noise": {"kwargs": {"size": 4}}}, progress=False, verifier=stand_in)
    assert calls == [("a.py", "noise", [], {"size": 4})]  # needs_root has no arguments: not called
    result = {p.info.name: p.verification for p in report.pipelines}
    assert result["noise"].status == "equal" and result["noise"].ratio == 0.5
    assert result["needs_root"].status == "skipped" and "root" in result["needs_root"].reason
    assert report.file_counts()["failed"] == 1

    report = build_report(["."], {"needs_root": {"args": ["/data"]}}, progress=False, verifier=stand_in)
    result = {p.info.name: p.verification for p in report.pipelines}
    assert result["needs_root"].status == "skipped" and "RuntimeError: boom" in result["needs_root"].reason
    assert report.verification_counts() == {"equal": 1, "partial": 0, "different": 0, "skipped": 1, "not-run": 0}

    write_report(report, tmp_path / "out")
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "| `a.py::noise` | 200 | 100 | 0.50× |" in markdown
    measured = json.loads((tmp_path / "out" / "report.json").read_text())[MEASURED_KEY]
    assert {t["name"]: t["ratio"] for t in measured["throughput"]} == {"noise": 0.5, "needs_root": None}
    # The tool's own speed on the DALI files (a.py), measured again after the run: migration vs bare round trip.
    speed = measured["tool_speed"]
    assert speed["dali_files"] == 1 and speed["migrate_seconds"] > 0 and speed["bare_roundtrip_seconds"] > 0
    assert speed["first_run_seconds"] > 0  # the run's own time for them, start-up included
    m, b = speed["migrate_seconds"], speed["bare_roundtrip_seconds"]  # rounded to 0.1 ms
    assert (m - 5e-5) / (b + 5e-5) - 1e-3 <= speed["ratio"] <= (m + 5e-5) / max(b - 5e-5, 1e-9) + 1e-3
    assert "Tool speed: migrating the 1 DALI files took" in markdown

    off = build_report(["."], progress=False, verifier=None)
    assert {p.verification.reason for p in off.pipelines} == {NOT_RUN_DISABLED}


def test_plots_are_pngs_a_person_can_read(example_report, tmp_path):
    write_report(example_report, tmp_path)
    for name in ("findings_by_rule.png", "throughput.png"):
        with Image.open(tmp_path / name) as image:
            assert image.format == "PNG"
            assert image.width >= 600 and image.height >= 250
            # Not blank: a plot has many colours (bars, text antialiasing).
            assert len(image.convert("RGB").getcolors(maxcolors=1 << 16) or []) > 20


def test_progress_only_on_a_terminal_or_when_forced():
    quiet = io.StringIO()
    Progress(3, None, quiet).step(1, "a.py")
    assert quiet.getvalue() == ""
    forced = io.StringIO()
    meter = Progress(3, True, forced)
    meter.step(1, "a.py")
    meter.step(2, "b.py")
    meter.done()
    assert forced.getvalue() == "[1/3] a.py\n[2/3] b.py\n"

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    tty = Terminal()
    meter = Progress(2, None, tty)
    meter.step(1, "long-name.py")
    meter.step(2, "b.py")
    meter.done()
    assert tty.getvalue().startswith("\r[1/2] long-name.py\r[2/2] b.py")
    assert tty.getvalue().endswith("\r")


def test_cli(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "rep"
    assert main(["report", EXAMPLE, "--out", str(out), "--progress"]) == 1  # markers remain
    err = capsys.readouterr().err
    assert "[1/8]" in err and "wrote" in err
    assert sorted(p.name for p in out.iterdir()) == ["findings_by_rule.png", "report.json", "report.md",
                                                     "throughput.png"]
    assert main(["report", "examples/repo/utils.py", "--out", str(tmp_path / "u"), "--no-plots"]) == 0
    assert "[1/" not in capsys.readouterr().err  # not a terminal, not forced: no progress
    bad_args = tmp_path / "args.json"
    bad_args.write_text("[1, 2]")
    assert main(["report", EXAMPLE, "--out", str(out), "--verify-args", str(bad_args)]) == 2
    assert main(["report", EXAMPLE]) == 2  # --out is required


DISCOVERY = '''import nvidia.dali as dali
import nvidia.dali.ops as legacy
from nvidia.dali.pipeline import pipeline_def as pdef, Pipeline as P


@dali.pipeline_def
def a(x, *, y, z=1):
    pass


@pdef(batch_size=2)
def b():
    pass


class C(P):
    def __init__(self, root, bs=2):
        self.r = legacy.readers.File(file_root=root)


class D(dali.Pipeline):
    def define_graph(self):
        pass


class NotAPipeline:
    pass


def factory(root):
    try:
        pipe = P(batch_size=1, num_threads=1, device_id=None)
    except ValueError:
        pipe = P(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs()
    return pipe


if __name__ == "__main__":
    module_pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
'''


def test_discovery_through_aliases():
    from dali_migrate.pipeline_defs import find_pipelines

    found = [(p.name, p.style, p.line, p.required) for p in find_pipelines(DISCOVERY, "d.py")]
    assert found == [
        ("a", "pipeline_def", 7, ["x", "y"]),
        ("b", "pipeline_def", 12, []),
        ("C", "legacy-ops", 16, ["root"]),
        ("D", "subclass", 21, []),
        ("factory", "with-block", 30, ["root"]),
        ("module_pipe", "with-block", 41, []),
    ]
    assert find_pipelines("import os\ndef f(:\n", "x.py") == []

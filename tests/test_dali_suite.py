"""benchmarks/dali_suite: DALI's own tests before and after migration (issue 32).

The parts that need no DALI tree run everywhere: the CPU start-up patch on real DALI (a pipeline built
with ``device_id=0`` runs on a machine without a GPU only with the patch; ``ndd.Device("gpu", 0)`` is an
inert context), the runner choice read from a test file, the first error line of a traceback, and a
before/after comparison of two small test files of our own, run by both runners.

The smoke subset of DALI's own test files (``benchmarks/dali_suite/smoke.json``) needs a DALI tree, which
CI does not have: it runs only when ``DALI_SUITE_TREE`` names one (a checkout holding
``dali/test/python``, e.g. /work/dali-src, the fork jantonguirao/DALI at 96915c35), and is skipped with
that reason otherwise. It migrates the smoke files with this checkout and requires no regression.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "benchmarks" / "dali_suite"
sys.path.insert(0, str(SUITE))

import run as suite  # noqa: E402

pytest.importorskip("nvidia.dali")


def run_python(code: str, tmp_path: Path, patch: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["DALI_NUM_THREADS"] = "1"
    if patch:
        env["PYTHONPATH"] = str(suite.PATCH_DIR)
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)


def no_gpu() -> bool:
    from nvidia.dali import backend

    return backend.GetCUDADeviceCount() == 0


needs_no_gpu = pytest.mark.skipif("not no_gpu()", reason="the patch acts only where CUDA reports no device")

PIPELINE_WITH_DEVICE_ID = """
    from nvidia.dali import fn, pipeline_def, types
    from nvidia.dali.pipeline import Pipeline

    @pipeline_def(batch_size=2, device_id=0)
    def decorated():
        return fn.constant(idata=[1, 2], dtype=types.INT32)

    # constructor arguments at the call: pipeline_def sorts them by getfullargspec(Pipeline.__init__)
    pipe = decorated(num_threads=1, device_id=0)
    pipe.build()
    print(pipe.run()[0].as_array().tolist())
    positional = Pipeline(2, 1, 0)  # device_id as the third positional argument
    with positional:
        positional.set_outputs(fn.constant(idata=[3], dtype=types.INT32))
    positional.build()
    print(positional.run()[0].as_array().tolist(), positional.device_id)
"""


@needs_no_gpu
def test_patch_lets_a_pipeline_with_device_id_build_without_gpu(tmp_path):
    unpatched = run_python(PIPELINE_WITH_DEVICE_ID, tmp_path, patch=False)
    assert unpatched.returncode != 0 and "CUDA is not available" in unpatched.stderr
    patched = run_python(PIPELINE_WITH_DEVICE_ID, tmp_path, patch=True)
    assert patched.returncode == 0, patched.stderr
    assert patched.stdout.split("\n")[:2] == ["[[1, 2], [1, 2]]", "[[3], [3]] None"]


DEVICE_CONTEXT = """
    import nvidia.dali.experimental.dynamic as ndd

    with ndd.Device("gpu", 0):
        print(ndd.Device.current().device_type)
        drawn = ndd.random.uniform(range=[0, 1], shape=[2], batch_size=2)
        drawn.evaluate()  # finished before the program ends: DALI 2.4.0 aborts one that exits mid-operation (dali-facts)
        print(drawn.device)
    with ndd.Device("gpu:1"):
        pass
    print(ndd.Device("cpu"))
"""


@needs_no_gpu
def test_patch_makes_a_gpu_device_an_inert_context_without_gpu(tmp_path):
    unpatched = run_python(DEVICE_CONTEXT, tmp_path, patch=False)
    assert unpatched.returncode != 0 and "Invalid device id" in unpatched.stderr
    patched = run_python(DEVICE_CONTEXT, tmp_path, patch=True)
    assert patched.returncode == 0, patched.stderr
    assert patched.stdout.split() == ["cpu", "cpu", "cpu"]


def test_patch_can_be_switched_off(tmp_path, monkeypatch):
    monkeypatch.setenv("DALI_SUITE_PATCH_OFF", "1")
    result = run_python("import sys, nvidia.dali.pipeline\nprint(type(sys.meta_path[0]).__name__)", tmp_path, True)
    assert result.returncode == 0 and result.stdout.strip() != "_Finder"


@pytest.mark.parametrize("source, runner", [
    ("def test_a():\n    for x in (1, 2):\n        yield check, x\n", "nose2"),
    ("from nose2.tools import params\n@params(1, 2)\ndef test_a(x):\n    pass\n", "nose2"),
    ("import nose2\n@nose2.tools.cartesian_params((1,), (2,))\ndef test_a(x, y):\n    pass\n", "nose2"),
    # a yield in a pipeline or in a nested generator is not a test generator
    ("def pipe():\n    yield 1\ndef test_a():\n    def gen():\n        yield 1\n    assert list(gen())\n", "pytest"),
    ("class TestX:\n    def test_a(self):\n        assert True\n", "pytest"),
])
def test_runner_is_chosen_by_reading_the_file(source, runner):
    assert suite.runner_for(source) == runner


def test_first_error_line():
    from dali_suite_outcome import first_error_line  # noqa: E402 (reporters/, on sys.path below)

    chained = ("Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n    g()\n"
               "RuntimeError: first\nsecond line\n\nDuring handling of the above exception, another exception "
               "occurred:\n\nTraceback (most recent call last):\n  File \"y.py\"\nAssertionError: later\n")
    assert first_error_line(chained) == "RuntimeError: first"
    pytest_repr = "    def test():\n>       f()\nE       TypeError: bad\nE       more\n\nx.py:3: TypeError"
    assert first_error_line(pytest_repr) == "TypeError: bad"


sys.path.insert(0, str(suite.REPORTERS_DIR))

# Two small test files of our own, run by the real runners: one passes before and fails after (a regression,
# silent: no marker), one gains a test, one keeps its result; nose2 generator cases compared by position.
BEFORE = {
    "test_gen.py": "def check(x):\n    assert x < 3\n\ndef test_values():\n    for x in (1, 2, 3):\n"
                   "        yield check, x\n",
    "test_plain.py": "import helper\n\ndef test_one():\n    assert helper.ONE == 1\n\ndef test_two():\n"
                     "    assert helper.ONE == 2\n",
    "helper.py": "ONE = 1\n",
}
AFTER = {
    "test_gen.py": BEFORE["test_gen.py"].replace("x < 3", "x < 2"),
    "test_plain.py": BEFORE["test_plain.py"].replace("== 2", "== 1") + "# changed\n",
    "helper.py": "ONE = 1  # dali-migrate: DM999 a marker in an imported module\n",
}


def nose_available() -> bool:
    lib = os.environ.get("DALI_SUITE_NOSE_LIB")
    probe = subprocess.run([sys.executable, "-c", "import nose2"], capture_output=True,
                           env=dict(os.environ, PYTHONPATH=lib or ""))
    return probe.returncode == 0


@pytest.mark.skipif("not nose_available()", reason="nose2 is not installed (pip install 'dali-migrate[dali-suite]')")
def test_compare_runs_both_runners_and_finds_regressions(tmp_path):
    trees = {}
    for side, files in (("original", BEFORE), ("migrated", AFTER)):
        folder = tmp_path / side
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text)
        trees[side] = folder
    python_path = [str(suite.PATCH_DIR), str(suite.REPORTERS_DIR)]
    results = {}
    for rel in ("test_gen.py", "test_plain.py"):
        runner = suite.runner_for(BEFORE[rel])
        runs = [suite.run_file(trees[side], rel, runner, 120, python_path, tmp_path) for side in trees]
        results[rel] = suite.compare(rel, runner, *runs, trees["original"], trees["migrated"])
    gen, plain = results["test_gen.py"], results["test_plain.py"]
    assert gen.runner == "nose2" and gen.passed_before == 2 and gen.passed_after == 1
    assert [(g["test"], g["outcome"]) for g in gen.regressions] == [("test_values:2", "failed")]
    assert gen.regressions[0]["error"].startswith("AssertionError") and gen.regressions[0]["args"] == "2"
    assert not gen.marked  # a silent regression
    assert plain.runner == "pytest" and plain.newly_passing == ["test_two"] and not plain.regressions
    assert plain.helper_markers == {"helper.py": ["DM999"]} and plain.marked
    summary = suite.tally([gen, plain])
    assert (summary["passed_before"], summary["passed_after"], summary["regressions"],
            summary["silent_regressions"], summary["newly_passing"]) == (3, 3, 1, 1, 1)


def test_selection_lists_existing_runners():
    selection = json.loads(suite.SELECTION.read_text())
    smoke = json.loads(suite.SMOKE.read_text())
    assert selection["files"] and all(e["runner"] in ("nose2", "pytest") for e in selection["files"])
    assert {e["file"] for e in smoke["files"]} <= {e["file"] for e in selection["files"]}


@pytest.mark.skipif(not os.environ.get("DALI_SUITE_TREE"),
                    reason="needs a DALI tree (CI has none): set DALI_SUITE_TREE to a checkout holding dali/test/python, "
                           "e.g. NVIDIA DALI / the fork jantonguirao/DALI at 96915c35")
def test_smoke_subset_of_dali_tests_runs_the_same_after_migration(tmp_path):
    """A few small DALI test files, migrated by this checkout: no test that passed before fails after."""
    command = [sys.executable, str(SUITE / "run.py"), "--smoke", "--dali", os.environ["DALI_SUITE_TREE"],
               "--work", str(tmp_path), "--json", str(tmp_path / "smoke.json")]
    if os.environ.get("DALI_SUITE_NOSE_LIB"):
        command += ["--nose-lib", os.environ["DALI_SUITE_NOSE_LIB"]]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert finished.returncode == 0, finished.stdout[-3000:] + finished.stderr[-3000:]
    report = json.loads((tmp_path / "smoke.json").read_text())
    assert report["summary"]["passed_before"] > 0
    regressions = [(f["file"], g["test"], g["error"]) for f in report["files"] for g in f["regressions"]]
    assert not regressions, regressions

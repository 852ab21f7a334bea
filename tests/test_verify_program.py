"""Program-level verification (``dali-migrate verify --run``, harness/programs.py): real runs of tiny
programs in a copy of their project and in a migrated copy.

The programs that must behave differently after migration, without DALI (so that these tests stay
fast), tell the two copies apart by the name of their working folder (``original`` / ``migrated``):
the comparison, not the migration, is what they test. The DALI programs are migrated for real."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dali_migrate import cli
from dali_migrate.harness.compare import Tolerance
from dali_migrate.harness.programs import (compare_text, lines_equal, verify_configured_program,
                                           verify_program)

ROOT = Path(__file__).resolve().parent.parent
MIGRATED_SIDE = "import os\nMIGRATED = os.path.basename(os.getcwd()) == 'migrated'\n"


def with_side(body: str) -> str:
    """A program that knows which copy it runs in (``MIGRATED``)."""
    return MIGRATED_SIDE + textwrap.dedent(body)


def project(tmp_path: Path, files: dict[str, str], name: str = "proj") -> Path:
    root = tmp_path / name
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if text.startswith(MIGRATED_SIDE) else textwrap.dedent(text))
    return root


DALI_PROGRAM = """\
import sys
import numpy as np
from nvidia.dali import pipeline_def, fn, types

@pipeline_def(batch_size=3, num_threads=2, device_id=0, seed=5)
def ramp(noise):
    x = fn.ones(shape=[4], dtype=types.FLOAT) * 2.5
    if noise:
        x = x + fn.random.uniform(range=(0, 1))
    return x

pipe = ramp(len(sys.argv) > 1)
pipe.build()
for step in range(2):
    (out,) = pipe.run()
    print("step", step, "samples", len(out), "sum", float(np.sum(out.as_array())))
"""


def test_a_migrated_dali_program_is_equal_and_the_user_tree_is_untouched(tmp_path):
    root = project(tmp_path, {"main.py": DALI_PROGRAM})
    before = (root / "main.py").read_text()
    report = verify_program(root, "python main.py", jobs=1, scratch=tmp_path / "scratch")
    assert report.verdict == "equal", report.format()
    assert report.outcome == "equal"
    assert report.stdout_lines == 2 and report.different_lines == 0
    assert report.migration_summary["changed"] == 2  # main.py, and the helper module it now imports (created)
    assert "ndd" in (Path(report.migrated_root) / "main.py").read_text()  # the copy was migrated
    assert (root / "main.py").read_text() == before
    assert not list(root.glob("*.migrated*")) and sorted(p.name for p in root.iterdir()) == ["main.py"]
    # no GPU here: device_id=0 was mapped in the original copy, and said so; the migrated one no longer
    # names a device (the generator takes no device_id: ndd runs on the current device)
    assert report.devices["mapped_to_cpu"]
    assert {m["side"] for m in report.device_mappings} == {"original"}
    assert "device_id" not in (Path(report.migrated_root) / "main.py").read_text()
    assert report.not_idempotent == []
    assert report.exit_code == 0


def test_random_values_differ_and_the_migration_said_so(tmp_path):
    root = project(tmp_path, {"main.py": DALI_PROGRAM})
    report = verify_program(root, "python main.py noise", jobs=1)
    assert report.verdict == "different", report.format()
    assert report.outcome == "marked-different"  # DM202: random values differ between the modes
    assert "DM202" in {f["rule"] for f in report.reported_differences}
    first = report.differences[0]
    assert (first.what, first.line) == ("stdout", 1)
    assert first.original.startswith("step 0 samples 3 sum ") and first.original != first.migrated
    assert report.exit_code == 1
    assert report.original_root == ""  # the temporary copies are gone
    text = report.format()
    assert "stdout, line 1" in text and "marked" in text


def test_floats_within_tolerance_are_equal_and_a_changed_line_is_found(tmp_path):
    root = project(tmp_path, {"main.py": with_side("""\
        print("loss", 0.30000001 if MIGRATED else 0.3, "steps", 3)
        print("shape (4, 3) float32")
        print("count", 4 if MIGRATED and len(__import__('sys').argv) > 1 else 3)
        print("done")
    """)})
    report = verify_program(root, "python main.py", jobs=1)
    assert report.verdict == "equal", report.format()
    report = verify_program(root, "python main.py changed", jobs=1)
    assert report.verdict == "different"
    assert report.outcome == "different"  # a silent difference: nothing migrated, nothing reported
    assert report.different_lines == 1
    first = report.differences[0]
    assert (first.line, first.original, first.migrated) == (3, "count 3", "count 4")
    tight = verify_program(root, "python main.py", jobs=1, atol=0, rtol=1e-9)
    assert tight.verdict == "different" and tight.differences[0].line == 1


def test_number_aware_line_comparison():
    tol = Tolerance(1e-5, 1e-5)
    assert lines_equal("mean 0.30000001", "mean 0.3", tol)
    assert not lines_equal("label 3", "label 4", tol)
    assert not lines_equal("n 1000000", "n 1000001", tol)  # integers are compared exactly
    assert not lines_equal("[0.5 1.  2. ]", "[0.5 1. 2. ]", tol)  # the text between numbers is exact
    assert lines_equal("[0.5 1. nan]", "[0.5000001 1. nan]", tol)
    assert not lines_equal("float32", "float64", tol)  # digits inside a word are text
    assert not lines_equal("sum 3.0", "total 3.0", tol)
    first, count, different = compare_text("a\nb 1\n", "a\nb 1\nc\n", tol)
    assert (first, count, different) == ((3, "(no line)", "c"), 3, 1)


def test_output_files_are_compared_by_kind(tmp_path):
    root = project(tmp_path, {"main.py": with_side("""\
        import sys
        import numpy as np
        from pathlib import Path
        out = Path("out"); out.mkdir(exist_ok=True)
        what = sys.argv[1]
        arr = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
        if MIGRATED and what == "npy":
            arr[1, 2] += 0.5
        if MIGRATED and what == "close":
            arr = arr + 1e-7
        np.save(out / "features.npy", arr)
        np.savez(out / "stats.npz", mean=arr.mean(0), count=np.array([2, 3]))
        (out / "log.txt").write_text("epoch 1 loss 0.25\\nepoch 2 loss %s\\n" % ("0.5" if MIGRATED and what == "txt" else "0.125"))
        (out / "blob.bin").write_bytes(bytes([1, 2, 3 if not (MIGRATED and what == "bin") else 4]))
        if MIGRATED and what == "extra":
            (out / "extra.txt").write_text("x")
        print("wrote", what)
    """)})
    equal = verify_program(root, "python main.py close", outputs="out", jobs=1)
    assert equal.verdict == "equal", equal.format()
    assert equal.output_files == 4

    npy = verify_program(root, "python main.py npy", outputs="out", jobs=1)
    assert npy.verdict == "different"
    d = npy.differences[0]
    assert d.what == "output file" and d.path == "out/features.npy" and "index (1, 2)" in d.detail

    txt = verify_program(root, "python main.py txt", outputs="out", jobs=1)
    d = txt.differences[0]
    assert (d.path, d.line, d.original, d.migrated) == ("out/log.txt", 2, "epoch 2 loss 0.125", "epoch 2 loss 0.5")

    binary = verify_program(root, "python main.py bin", outputs="out", jobs=1)
    assert binary.differences[0].path == "out/blob.bin" and "offset 2" in binary.differences[0].detail

    extra = verify_program(root, "python main.py extra", outputs="out", jobs=1)
    d = extra.differences[0]
    assert d.what == "output files" and d.migrated == "extra.txt"
    assert extra.stdout_lines == 1 and extra.different_lines == 0  # stdout itself was equal


def test_stale_outputs_in_the_user_tree_are_not_compared(tmp_path):
    root = project(tmp_path, {"main.py": "print('nothing written')\n", "out/old.txt": "stale\n"})
    report = verify_program(root, "python main.py", outputs="out", jobs=1)
    assert report.verdict == "equal" and report.output_files == 0  # neither run wrote the folder


def test_original_failing_migrated_failing_and_timeout(tmp_path):
    root = project(tmp_path, {"main.py": with_side("""\
        import sys, time
        mode = sys.argv[1]
        print("started")
        if mode == "fail":
            raise SystemExit("the original is broken too")
        if mode == "migrated-fail" and MIGRATED:
            raise RuntimeError("only after migration")
        if mode == "slow" and MIGRATED:
            time.sleep(60)
        print("finished")
    """)})
    failed = verify_program(root, "python main.py fail", jobs=1)
    assert failed.verdict == "original-failed" and failed.exit_code == 1
    assert "the original is broken too" in failed.original.stderr
    assert failed.migrated.exit_code is None  # nothing to compare: the migrated copy is not run

    broken = verify_program(root, "python main.py migrated-fail", jobs=1)
    assert broken.verdict == "migrated-failed"
    assert "RuntimeError: only after migration" in broken.migrated.stderr
    assert "only after migration" in broken.format()

    slow = verify_program(root, "python main.py slow", jobs=1, timeout_s=3)
    assert slow.verdict == "timeout" and slow.migrated.timed_out
    assert slow.migrated.seconds < 30


def test_the_timeout_kills_the_whole_process_group(tmp_path):
    marker = tmp_path / "child-alive"
    root = project(tmp_path, {"main.py": f"""\
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time, pathlib; time.sleep(4); pathlib.Path({str(marker)!r}).write_text('x')"])
        time.sleep(60)
    """})
    report = verify_program(root, "python main.py", jobs=1, timeout_s=1)
    assert report.verdict == "original-failed" and report.original.timed_out
    import time
    time.sleep(5)
    assert not marker.exists()  # the grandchild was killed with its group


def test_bad_arguments_are_errors(tmp_path):
    root = project(tmp_path, {"main.py": "print(1)\n"})
    assert verify_program(tmp_path / "nope", "python main.py").verdict == "error"
    assert verify_program(root, "   ").verdict == "error"
    assert verify_program(root, "python 'main.py").verdict == "error"  # unbalanced quote
    assert verify_program(root, "python main.py", outputs="../elsewhere").verdict == "error"
    assert verify_program(root, "python main.py", outputs="/abs").verdict == "error"
    missing = verify_program(root, "no-such-program-dali-migrate --x", jobs=1)
    assert missing.verdict == "error" and "cannot start" in missing.error
    assert missing.exit_code == 2


def test_imports_across_modules_and_pythonpath_point_into_the_copies(tmp_path, monkeypatch):
    root = project(tmp_path, {
        "lib/where.py": "import os\nHERE = os.path.dirname(os.path.abspath(__file__))\n",
        "main.py": "from where import HERE\nimport os\nprint(os.path.basename(os.path.dirname(HERE)))\n",
    })
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root / "lib"), os.environ.get("PYTHONPATH", "")]))
    report = verify_program(root, "python main.py", jobs=1, scratch=tmp_path / "s")
    assert report.verdict == "different"  # each run imported its own copy's module, not the user's
    assert (report.differences[0].original, report.differences[0].migrated) == ("original", "migrated")


def test_copies_skip_caches_keep_data_links_and_scratch_inside_the_root(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "value.txt").write_text("42\n")
    root = project(tmp_path, {"main.py": "print(open('data/value.txt').read().strip())\n",
                              ".git/HEAD": "x", ".venv/bin/python": "x", "__pycache__/m.pyc": "x"})
    (root / "data").symlink_to(data, target_is_directory=True)
    report = verify_program(root, "python main.py", jobs=1, scratch=root / ".dali-migrate" / "verify")
    assert report.verdict == "equal", report.format()
    copy = Path(report.original_root)
    assert copy.is_relative_to(root / ".dali-migrate")
    assert sorted(p.name for p in copy.iterdir()) == ["data", "main.py"]
    assert (copy / "data").is_symlink() and report.original.stdout == "42\n"
    assert not (copy / ".dali-migrate").exists()  # the scratch folder is not copied into itself
    for _ in range(2):  # a visible scratch folder, used twice: no run copies an earlier run's copies
        again = verify_program(root, "python main.py", jobs=1, scratch=root / "verify-runs")
        assert again.verdict == "equal"
        assert sorted(p.name for p in Path(again.original_root).iterdir()) == ["data", "main.py"]


NOTEBOOK_CELLS = [
    ("code", "%matplotlib inline\nimport sys\nimport numpy as np\nimport matplotlib.pyplot as plt"),
    ("markdown", "# A pipeline"),
    ("code", "from nvidia.dali import pipeline_def, fn, types\n\n"
             "@pipeline_def(batch_size=2, num_threads=2, device_id=0)\n"
             "def ones():\n    return fn.ones(shape=[2], dtype=types.FLOAT) * 1.5\n"),
    ("code", "!echo not run\npipe = ones()\npipe.build()\n(out,) = pipe.run()\nplt.plot([1, 2])\nplt.show()\n"
             "print('argv', sys.argv[1:])\nfloat(np.sum(out.as_array()))"),
    ("code", "%%bash\necho skipped"),
]


def write_notebook(path: Path, cells) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) if kind == "code" else nbformat.v4.new_markdown_cell(src)
                for kind, src in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def test_the_notebook_runner(tmp_path):
    nb = tmp_path / "nb.ipynb"
    write_notebook(nb, [("code", "%time x = 1 + 1\nimport sys\nprint(sys.argv)"),
                        ("code", "%%capture\nprint('swallowed')\ny = 5"),
                        ("code", "x * y"), ("code", "x;"), ("code", "raise ValueError('in cell four')")])
    run = subprocess.run([sys.executable, "-m", "dali_migrate.harness.run_notebook", str(nb), "--a", "b"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 1
    assert run.stdout.splitlines() == [repr([str(nb), "--a", "b"]), "10"]
    assert f"{nb}:cell[5]" in run.stderr and "ValueError: in cell four" in run.stderr
    bad = subprocess.run([sys.executable, "-m", "dali_migrate.harness.run_notebook", str(tmp_path / "x.ipynb")],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert bad.returncode == 2 and "cannot read" in bad.stderr


def test_a_notebook_program_migrates_and_runs_equal(tmp_path, monkeypatch):
    root = tmp_path / "nbproj"
    write_notebook(root / "main.ipynb", NOTEBOOK_CELLS)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    report = verify_program(root, "python -m dali_migrate.harness.run_notebook main.ipynb --flag", jobs=1,
                            scratch=tmp_path / "s")
    assert report.verdict == "equal", report.format()
    assert report.original.stdout.splitlines() == ["argv ['--flag']", "6.0"]
    assert any(m["path"].startswith("main.ipynb:cell[") for m in report.device_mappings)
    migrated = json.loads((Path(report.migrated_root) / "main.ipynb").read_text())
    assert "ndd" in "".join(migrated["cells"][2]["source"])
    assert "%matplotlib inline" in "".join(migrated["cells"][0]["source"])  # magics survive the mapping


def test_cli_exit_codes_json_and_mixed_forms(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, {"main.py": MIGRATED_SIDE + "import sys\nprint(1 if MIGRATED and sys.argv[1:] else 0)\n"})
    assert cli.main(["verify", "--run", "python main.py", str(root)]) == 0
    assert "verdict: EQUAL" in capsys.readouterr().out
    assert cli.main(["verify", "--run", "python main.py x", str(root), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "different" and data["exit_code"] == 1
    assert data["first_difference"] == {"what": "stdout", "path": "", "line": 1, "original": "0", "migrated": "1",
                                        "detail": ""}
    assert cli.main(["verify", "--run", "python main.py", str(tmp_path / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert cli.main(["verify", "--run", "python main.py", str(root), "--pipeline", "p"]) == 2
    assert "--pipeline belong to the one-pipeline form" in capsys.readouterr().err
    assert cli.main(["verify", "x.py", "--pipeline", "p", "--outputs", "out"]) == 2
    assert "--outputs belong to the --run form" in capsys.readouterr().err
    assert cli.main(["verify", "--outputs", "out"]) == 2
    assert cli.main(["verify", "--run", "python main.py", str(root), "--timeout", "0", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["exit_code"] == 2
    monkeypatch.chdir(root)  # PATH defaults to "."
    assert cli.main(["verify", "--run", "python main.py"]) == 0


def test_configured_command_and_outputs(tmp_path, capsys):
    root = project(tmp_path, {
        "main.py": "from pathlib import Path\nPath('res').mkdir()\nPath('res/a.txt').write_text('1')\nprint('ok')\n",
        "pyproject.toml": '[tool.dali-migrate]\nverify-command = "python main.py"\nverify-outputs = "res"\n'})
    report = verify_configured_program(root, scratch=root / ".dali-migrate", timeout_s=60)
    assert report.verdict == "equal" and report.command == "python main.py" and report.output_files == 1
    assert cli.main(["verify", "--run", "python main.py", str(root), "--json"]) == 0  # outputs from the config
    assert json.loads(capsys.readouterr().out)["outputs"] == "res"

    bare = project(tmp_path, {"main.py": "print(1)\n", "pyproject.toml": "[tool.dali-migrate]\njobs = 1\n"}, "bare")
    report = verify_configured_program(bare, scratch=bare / ".s", timeout_s=60)
    assert report.verdict == "error" and "no verify-command" in report.error
    wrong = project(tmp_path, {"pyproject.toml": "[tool.dali-migrate]\nverify-command = 3\n"}, "wrong")
    report = verify_configured_program(wrong, scratch=wrong / ".s", timeout_s=60)
    assert report.verdict == "error" and "verify-command must be a non-empty string" in report.error


def test_a_notebook_runs_in_its_own_folder_as_in_jupyter(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "value.txt").write_text("41")
    nb = tmp_path / "docs" / "nb.ipynb"
    write_notebook(nb, [("code", "print(int(open('../data/value.txt').read()) + 1)")])
    run = subprocess.run([sys.executable, "-m", "dali_migrate.harness.run_notebook", "docs/nb.ipynb"],
                         cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (run.returncode, run.stdout) == (0, "42\n"), run.stderr

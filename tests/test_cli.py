"""The CLI contract: `migrate PATH...` diff / --write / --check / --json, exit codes 0/1/2."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from dali_migrate.cli import main

MIGRATABLE = 'import nvidia.dali.fn as fn\n\n\ndef f(x):\n    return fn.flip(x, device="mixed")\n'
NEEDS_A_PERSON = "import nvidia.dali.fn as fn\n\n\ndef f(x):\n    return fn.python_function(x, function=abs)\n"
CLEAN = "import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.as_batch([1])\n"


def _cli(*args, cwd):
    """Run the CLI as users do, in a separate process."""
    return subprocess.run([sys.executable, "-m", "dali_migrate", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "aug.py").write_text(MIGRATABLE)
    (tmp_path / "pkg" / "plain.py").write_text("import os\n")
    (tmp_path / "pkg" / ".venv").mkdir()
    (tmp_path / "pkg" / ".venv" / "skipped.py").write_text(MIGRATABLE)
    return tmp_path


def test_diff_by_default_relative_headers_and_nothing_written(project):
    proc = _cli("migrate", "pkg", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("--- a/pkg/sub/aug.py\n+++ b/pkg/sub/aug.py\n")
    assert '+    return ndd.flip(x, device="gpu")' in proc.stdout
    assert "skipped.py" not in proc.stdout  # .venv is not searched
    assert (project / "pkg" / "sub" / "aug.py").read_text() == MIGRATABLE
    assert "1 would change" in proc.stderr


def test_write_then_clean(project):
    proc = _cli("migrate", "--write", "pkg", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "ndd.flip(x, device=\"gpu\")" in (project / "pkg" / "sub" / "aug.py").read_text()
    again = _cli("migrate", "--check", "pkg", cwd=project)
    assert again.returncode == 0 and again.stdout == ""


def test_manual_follow_up_exits_1_even_after_write(tmp_path, capsys):
    path = tmp_path / "m.py"
    path.write_text(NEEDS_A_PERSON)
    assert main(["migrate", "--write", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:5:" in out and "DM103 [manual]" in out
    assert "# dali-migrate: DM103" in path.read_text()


def test_check_prints_findings_not_diffs(tmp_path, capsys):
    path = tmp_path / "m.py"
    path.write_text(MIGRATABLE)
    assert main(["migrate", "--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "DM110 [fixed]" in out and "---" not in out
    assert path.read_text() == MIGRATABLE


def test_errors_exit_2_with_file_and_line(tmp_path):
    (tmp_path / "bad.py").write_text("import nvidia.dali.fn as fn\nx = )\n")
    (tmp_path / "good.py").write_text(MIGRATABLE)
    proc = _cli("migrate", "--check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "bad.py:2:5: DM001 [manual] does not parse: unmatched ')'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert "good.py:5:" in proc.stdout  # the other file was still processed


@pytest.mark.parametrize("argv", [["migrate"], ["migrate", "--bogus", "x.py"], ["nonsense"], [],
                                  ["migrate", "--write", "--check", "x.py"]])
def test_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2


def test_missing_path_exits_2(tmp_path, capsys):
    assert main(["migrate", str(tmp_path / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_clean_input_exits_0(tmp_path, capsys):
    path = tmp_path / "clean.py"
    path.write_text(CLEAN)
    assert main(["migrate", str(path)]) == 0
    assert capsys.readouterr().out == ""


def test_json_schema(project):
    (project / "pkg" / "bad.py").write_text("import nvidia.dali.fn as fn\ndef f(:\n")
    proc = _cli("migrate", "--json", "pkg", cwd=project)
    assert proc.returncode == 2
    payload = json.loads(proc.stdout)
    assert set(payload) == {"tool", "version", "dali_table_version", "mode", "exit_code", "summary", "files"}
    assert payload["tool"] == "dali-migrate" and payload["mode"] == "diff" and payload["exit_code"] == 2
    # The file that does not parse is one error, not also a spot for a person.
    assert payload["summary"] == {"files": 3, "changed": 1, "written": 0, "errors": 1, "manual_findings": 0,
                                  "statuses": {"error": 1, "migrated": 1, "no-dali": 1}}
    files = {f["path"]: f for f in payload["files"]}
    assert set(files) == {"pkg/bad.py", "pkg/sub/aug.py"}  # files without DALI are not listed
    aug = files["pkg/sub/aug.py"]
    assert set(aug) == {"path", "status", "changed", "error", "findings", "migrated", "diff"}
    assert aug["status"] == "migrated" and aug["changed"] is True and aug["error"] is None
    for finding in aug["findings"]:
        assert set(finding) >= {"rule", "message", "path", "line", "column", "end_line", "end_column", "fixed",
                                "severity"}
        assert finding["line"] >= 1 and finding["column"] >= 1  # 1-based, as in the text output
    assert {f["rule"] for f in aug["findings"]} >= {"DM101", "DM110", "DM100"}
    bad = files["pkg/bad.py"]
    assert bad["status"] == "error" and (bad["findings"][0]["line"], bad["findings"][0]["column"]) == (2, 7)


def test_json_check_mode_has_no_code(tmp_path, capsys):
    path = tmp_path / "m.py"
    path.write_text(MIGRATABLE)
    assert main(["migrate", "--json", "--check", str(path)]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["mode"] == "check" and "migrated" not in payload["files"][0]

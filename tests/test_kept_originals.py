"""Originals kept from before a write (``files.keep_original``): where they go, and that no run
picks them up again."""

import os
import shutil
import subprocess

import pytest

from dali_migrate import migrate_paths
from dali_migrate.discovery import discover
from dali_migrate.files import ORIGINALS_DIR, iter_source_files, keep_original

PIPELINE = "import nvidia.dali.fn as fn\n\n\ndef augment(images):\n    return fn.resize(images, size=64)\n"


def test_keeps_the_text_and_mode_and_ignores_itself_for_git(tmp_path):
    (tmp_path / "pkg").mkdir()
    script = tmp_path / "pkg" / "aug.py"
    script.write_text(PIPELINE)
    os.chmod(script, 0o755)
    kept = keep_original(tmp_path, "pkg/aug.py", PIPELINE)
    assert kept == tmp_path / ORIGINALS_DIR / "pkg" / "aug.py"
    assert kept.read_text() == PIPELINE and kept.stat().st_mode & 0o777 == 0o755
    assert (tmp_path / ".dali-migrate" / ".gitignore").read_text().splitlines()[-1] == "*"
    keep_original(tmp_path, "pkg/aug.py", "x = 1\n")  # a later write keeps the text from just before it
    assert kept.read_text() == "x = 1\n"


def test_refuses_a_state_folder_that_links_out_of_the_root(tmp_path):
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / ".dali-migrate").symlink_to(outside, target_is_directory=True)
    with pytest.raises(OSError, match="leads out of"):
        keep_original(root, "aug.py", PIPELINE)
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("git", [False, True])
def test_folder_runs_never_take_the_kept_originals(tmp_path, git):
    if git and shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "aug.py").write_text(PIPELINE)
    keep_original(tmp_path, "aug.py", PIPELINE)
    if git:  # discovery asks git which files count; the state folder's own .gitignore hides it
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert [os.path.basename(f) for f in discover([str(tmp_path)])] == ["aug.py"]
    assert [f.name for f in iter_source_files([tmp_path])] == ["aug.py"]
    run = migrate_paths([str(tmp_path)], jobs=1)
    assert [os.path.basename(f.path) for f in run.files] == ["aug.py"]

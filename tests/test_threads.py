"""Thread counts: DALI 2.4.0 hangs when the process-wide pool shrinks after CPU work, so migrated
generators only ever grow it (rule DM206). Both halves run in child processes with a time limit."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("nvidia.dali")
from dali_migrate import migrate_source  # noqa: E402
from runtime import write_migrated  # noqa: E402

LIMIT_S = 45


@pytest.fixture(scope="module")
def jpegs(tmp_path_factory):
    from PIL import Image

    root = tmp_path_factory.mktemp("threads")
    (root / "0").mkdir()
    for i in range(4):
        Image.fromarray(np.full((16, 16, 3), 40 * i, np.uint8)).save(root / "0" / f"{i}.jpg")
    return root


def _run(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=LIMIT_S)


def test_premise_shrinking_the_pool_after_cpu_work_hangs(jpegs):
    """If this starts passing (DALI fixed it), the grow-only guard of DM206 can go."""
    code = textwrap.dedent(f"""
        import nvidia.dali.experimental.dynamic as ndd
        ndd.set_num_threads(2)
        reader = ndd.readers.File(file_root={str(jpegs)!r})
        for jpegs, _ in reader.next_epoch(batch_size=2):
            ndd.decoders.image(jpegs).evaluate()
        ndd.set_num_threads(1)
        reader = ndd.readers.File(file_root={str(jpegs)!r})
        for jpegs, _ in reader.next_epoch(batch_size=2):
            ndd.decoders.image(jpegs).evaluate()
        print("finished")
    """)
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=15)


PROGRAM = '''
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=2, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def val_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


def main(root):
    train = train_pipe(root)
    train.build()
    shapes = [train.run()[0].shape() for _ in range(3)]
    val = val_pipe(root)
    val.build()
    shapes += [val.run()[0].shape() for _ in range(3)]
    return shapes
'''


def test_a_smaller_num_threads_after_a_larger_one_runs_to_the_end(jpegs, tmp_path):
    result = migrate_source(PROGRAM, "prog.py")
    assert result.error is None and not result.manual
    # Literal thread counts: the module grows the pool once, to the largest (2), never shrinking it.
    assert result.migrated.count("ndd.set_num_threads(") == 1
    assert "if ndd.get_num_threads() < 2:\n    ndd.set_num_threads(2)" in result.migrated
    assert "num_threads=" not in result.migrated
    write_migrated(tmp_path / "prog.py", result.migrated)
    done = _run(f"import prog; print(len(prog.main({str(jpegs)!r})))", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("6")


def test_computed_thread_counts_grow_only_in_each_generator(jpegs, tmp_path):
    """Thread counts the callers compute stay generator parameters, and each generator grows only."""
    program = PROGRAM.replace("def main(root):", "def main(root, counts=(2, 1)):").replace(
        "train = train_pipe(root)", "train = train_pipe(root, num_threads=counts[0])").replace(
        "val = val_pipe(root)", "val = val_pipe(root, num_threads=counts[1])")
    result = migrate_source(program, "prog.py")
    assert result.error is None and not result.manual
    assert "ndd.set_num_threads(num_threads)" in result.migrated
    assert result.migrated.count("> ndd.get_num_threads()") == 2  # both generators grow only
    write_migrated(tmp_path / "prog.py", result.migrated)
    done = _run(f"import prog; print(len(prog.main({str(jpegs)!r})))", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("6")

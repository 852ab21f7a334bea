"""Source helpers (transforms/unroll/source_helpers.py): graph parts in one module that hold the readers of
pipelines in another. Each module migrated alone and the project migrated in one run must give the same
modules, and the program must print what the pipeline-mode program printed (real DALI, generated data)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dali_migrate.api import _migrate_text, migrate_paths
from runtime import make_program_data

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "golden" / "runnable" / "helper_module_source"


def _run(folder: Path, data: dict) -> str:
    result = subprocess.run([sys.executable, "main.py", data["images"], data["numpy"]], cwd=folder,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def program_data(tmp_path_factory):
    return make_program_data(tmp_path_factory.mktemp("source_helper_data"))


def test_each_module_migrated_alone_agrees_with_the_project_run(tmp_path, program_data):
    original = _run(PROGRAM, program_data)
    alone, together = tmp_path / "alone", tmp_path / "together"
    for folder in (alone, together):
        shutil.copytree(PROGRAM, folder, ignore=shutil.ignore_patterns("case.json", "__pycache__"))
    for path in sorted(alone.glob("*.py")):
        run = migrate_paths([str(path)], write=True)
        assert not [f for r in run.files for f in r.findings if not f.fixed], path.name
    run = migrate_paths([str(together)], write=True)
    assert not [f for r in run.files for f in r.findings if not f.fixed]
    for path in sorted(alone.glob("*.py")):  # (the helper module too: one run adds what the other writes at once)
        assert path.read_text() == (together / path.name).read_text(), path.name
        assert "fn." not in path.read_text()
    assert "next(source)" in (alone / "main.py").read_text()
    assert _run(alone, program_data) == original
    again = migrate_paths([str(together)], write=False)
    assert not any(r.changed for r in again.files)


def _alone_and_together(program: Path, tmp_path: Path, program_data: dict) -> tuple[str, dict]:
    """The program's output, and {"alone"/"together": the migrated folder}, each module migrated alone or the
    folder in one run, with no marker, printing what the original printed."""

    def run(folder):
        result = subprocess.run([sys.executable, "main.py", program_data["images"]], cwd=folder, capture_output=True,
                                text=True, timeout=300)
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    original, folders = run(program), {}
    for how in ("alone", "together"):
        folder = folders[how] = tmp_path / how
        shutil.copytree(program, folder, ignore=shutil.ignore_patterns("case.json", "__pycache__"))
        runs = [migrate_paths([str(path)], write=True) for path in sorted(folder.glob("*.py"))] if how == "alone" \
            else [migrate_paths([str(folder)], write=True)]
        assert not [f for r in runs for m in r.files for f in m.findings if not f.fixed], how
        assert run(folder) == original, how
    return original, folders


def test_a_random_op_in_a_source_helper_gets_the_batch_size_and_the_subclass_seed(tmp_path, program_data):
    """An input-less random op in the helper: one value per sample (batch_size=batch_size), drawn from the RNG
    the calling Pipeline subclass seeds; migrated alone or together, the program says the same of its flips."""
    original, folders = _alone_and_together(ROOT / "golden" / "runnable" / "source_helper_random_seed", tmp_path,
                                            program_data)
    assert "same seed, same flips: True" in original and "a value per sample: True" in original
    for folder in folders.values():
        assert "ndd.random.coin_flip(batch_size=batch_size)" in (folder / "graph_parts.py").read_text()
        assert "ndd.random.set_seed(self.seed)" in (folder / "main.py").read_text()


def test_a_named_reader_in_a_source_helper_answers_for_the_pipeline(tmp_path, program_data):
    """pipe.epoch_size("Reader"), reader_meta and reader_name= over a reader that lives in a source helper: the
    helper returns a ReaderStream, and the pipeline's ReaderStream answers with its readers."""
    original, folders = _alone_and_together(ROOT / "golden" / "runnable" / "source_helper_reader_meta", tmp_path,
                                            program_data)
    assert "epoch size 10" in original
    for folder in folders.values():
        assert 'return ReaderStream(steps(), {"Reader": reader}, batch_size)' in (folder / "graph_parts.py").read_text()
        assert '{**getattr(source, "_readers", {})}' in (folder / "main.py").read_text()


def _migrated(source: str, path: str = "mod.py") -> tuple[str, list]:
    result = _migrate_text(source, path, ".py")
    return result.migrated, result.findings


HELPER = '''
import nvidia.dali.fn as fn


def images(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    return fn.decoders.image(jpegs), labels
'''


def test_a_shuffling_source_helper_gets_the_pipeline_seed_by_keyword():
    text, findings = _migrated(HELPER)
    assert "def images(root, *, batch_size, seed=None):" in text
    assert "random_shuffle=True, seed=seed)" in text
    assert {"DM240", "DM203"} <= {f.rule for f in findings}
    assert not [f for f in findings if not f.fixed]



@pytest.mark.parametrize("reader, unpacked", [("fn.readers.file(file_root=root, name='Reader')", "outputs"),
                                              ("fn.readers.numpy(file_root=root)", "(outputs,)")])
def test_a_reader_call_returned_directly_is_a_source_helper(reader, unpacked):
    """``return fn.readers.file(...)`` with no name bound first: the same source helper as the assigned form (it was
    left a renamed reader, DM104). One output is unpacked from next_epoch's tuple; several are yielded as a tuple."""
    text, findings = _migrated(f"from nvidia.dali import fn\n\n\ndef read(root):\n    return {reader}\n")
    assert "def read(root, *, batch_size, seed=None):" in text
    assert f"for {unpacked} in reader.next_epoch(batch_size=batch_size):" in text and "yield outputs" in text
    assert "DM240" in {f.rule for f in findings} and "DM104" not in {f.rule for f in findings}
    assert not [f for f in findings if not f.fixed]

@pytest.mark.parametrize("body", [
    # called in its own module: the module's pipelines inline it (graph_functions), it is no stream
    HELPER + "\n\ndef other(root):\n    return images(root)\n",
    # takes pipeline data: a per-step helper
    HELPER.replace("def images(root):", "def images(root, extra):").replace(
        "fn.decoders.image(jpegs)", "fn.cat(fn.decoders.image(jpegs), extra)"),
    # a second return: not one stream of steps
    HELPER.replace("    jpegs, labels", "    if not root:\n        return None\n    jpegs, labels"),
])
def test_what_is_not_a_source_helper_stays(body):
    text, findings = _migrated(body)
    assert "*, batch_size" not in text and "next_epoch(batch_size=batch_size)" not in text
    assert "DM240" not in {f.rule for f in findings}


CALLER = '''
from nvidia.dali import fn, pipeline_def

import parts


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def pipe(root):
    scale = parts.scale_of(root)
    images, labels = parts.images(root)
    return fn.resize(images, size=scale), labels
'''


def test_an_invisible_callee_is_a_source_only_where_it_gives_the_pipeline_data():
    text, findings = _migrated(CALLER, "main.py")
    assert "source = parts.images(root, batch_size=batch_size)" in text
    assert "images, labels = next(source)" in text
    assert "scale = parts.scale_of(root)" in text and "parts.scale_of(root, batch_size" not in text
    assert not [f for f in findings if not f.fixed]


def test_a_pipeline_with_a_reader_of_its_own_calls_invisible_helpers_as_they_are():
    text, _ = _migrated(CALLER.replace("    scale = parts.scale_of(root)\n",
                                       "    scale = parts.scale_of(root)\n    _, more = fn.readers.file(file_root=root)\n"),
                        "main.py")
    assert "parts.images(root)" in text and "next(source)" not in text


def test_a_reader_in_a_method_of_an_imported_class_says_why_it_stays():
    text, findings = _migrated('''
import nvidia.dali.fn as fn
from data.core import PipelineCore


class NumpyPipeline(PipelineCore):
    def get_inputs(self, pipeline, **kwargs):
        return fn.readers.numpy(file_root=self._root, name="data_reader")
''', "npy.py")
    reader = [f for f in findings if f.rule == "DM104"]
    assert len(reader) == 1 and not reader[0].fixed
    assert "class derived from data.core.PipelineCore (another module)" in reader[0].message
    assert "# dali-migrate: DM104" in text

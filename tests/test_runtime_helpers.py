"""The run-time helpers as ordinary code (dali_migrate/runtime, issue 34): each module imported directly and run
with real DALI on the CPU over a few generated JPEGs, against what pipeline mode gives. The helper module a
migration writes is a copy of these definitions (transforms/unroll/helpers.py; test_helper_module.py checks
the copies and the programs that import them)."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dali_migrate.transforms.unroll import helpers
from runtime import make_images

RUNTIME = Path(helpers.runtime.__file__).parent


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    return str(make_images(tmp_path_factory.mktemp("runtime_images"), count=7, classes=3))


def _pipeline(root, batch_size=3):
    from nvidia.dali import fn, pipeline_def

    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def labels_pipe():
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        return fn.resize(fn.decoders.image(jpegs), resize_x=8, resize_y=8), labels

    pipe = labels_pipe()
    pipe.build()
    return pipe


def _steps(reader, batch_size=3):
    """The dynamic-mode twin of _pipeline: endless steps over the reader's epochs."""
    import nvidia.dali.experimental.dynamic as ndd

    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.resize(ndd.decoders.image(jpegs), resize_x=8, resize_y=8), labels


def _reader(root, batch_size=3):
    import nvidia.dali.experimental.dynamic as ndd

    return ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)


def _labels(batch) -> list[int]:
    import numpy as np
    import nvidia.dali.experimental.dynamic as ndd

    return [int(x) for x in np.asarray(ndd.as_tensor(batch).cpu()).reshape(-1)]


def test_each_module_imports_only_its_own_package_at_the_top():
    """What a definition needs from DALI, numpy or a framework it imports inside itself: the helper module imports
    without them (a PyTorch project needs no TensorFlow), and the copy leaves out only imports of this package."""
    for module in helpers.RUNTIME_MODULES:
        tree = ast.parse((RUNTIME / f"{module}.py").read_text())
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                assert isinstance(node, ast.ImportFrom) and node.level == 1, f"{module}: {ast.unparse(node)}"
    code = ("import sys\nimport dali_migrate.runtime." + ", dali_migrate.runtime.".join(helpers.RUNTIME_MODULES) +
            "\nprint(sorted(m for m in ('nvidia.dali', 'torch', 'tensorflow', 'jax', 'numpy') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_every_definition_is_written_once_and_copied_as_it_is():
    names = list(helpers._definitions())
    assert len(names) == len(set(names)) and "_settle_at_exit" in names
    text = helpers.module_text()
    for name in names:
        assert helpers._definitions()[name][0] in text
    assert text.count("def _settle_at_exit(") == 1
    namespace: dict = {}
    exec(compile(text, "dali_dynamic_compat.py", "exec"), namespace)  # the copy runs on its own
    assert issubclass(namespace["JaxEpochIterator"], namespace["EpochIterator"])


def test_reader_stream_answers_as_the_pipeline_did(image_root):
    from dali_migrate.runtime.reader_stream import ReaderStream

    pipe = _pipeline(image_root)
    reader = _reader(image_root)
    stream = ReaderStream(_steps(reader), {"Reader": reader}, 3)
    assert stream.max_batch_size == pipe.max_batch_size == 3
    assert stream.epoch_size("Reader") == pipe.epoch_size("Reader") == 7
    assert stream.epoch_size() == pipe.epoch_size()
    assert stream.reader_meta("Reader") == pipe.reader_meta("Reader")
    for _ in range(4):  # steps cross epochs as pipe.run() did
        _, want = pipe.run()
        _, got = next(stream)
        assert _labels(got) == [int(want.at(i)[0]) for i in range(len(want))]
    stream.close()
    adapted = ReaderStream.adapt(_pipeline(image_root))  # a pipeline-mode Pipeline through the same interface
    assert adapted.epoch_size("Reader") == 7 and _labels(next(adapted)[1]) == [0, 0, 0]


def test_prefetch_gives_the_generators_steps_in_order_and_stops_its_thread(image_root):
    from dali_migrate.runtime.prefetch import Prefetch

    alone = _steps(_reader(image_root))
    want = [_labels(next(alone)[1]) for _ in range(6)]
    alone.close()
    prefetched = Prefetch(depth=3)(lambda: _steps(_reader(image_root)))()
    assert [_labels(next(prefetched)[1]) for _ in range(6)] == want
    assert any(t.name == "dali-migrate prefetch" for t in threading.enumerate())
    prefetched.close()
    assert not any(t.name == "dali-migrate prefetch" and t.is_alive() for t in threading.enumerate())
    assert Prefetch(depth=1)(_steps) is _steps  # depth=1: pipeline mode loaded nothing ahead either


@pytest.mark.parametrize("policy", ["FILL", "DROP", "PARTIAL"])
def test_epoch_iterator_gives_what_the_plugin_gave(image_root, policy):
    pytest.importorskip("torch")
    from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

    from dali_migrate.runtime.epoch_iterator import EpochIterator
    from dali_migrate.runtime.reader_stream import ReaderStream

    def epochs(loader):
        found = []
        for _ in range(3):
            found.append((len(loader), loader.size, [b[0]["label"].view(-1).tolist() for b in loader]))
            loader.reset()
        return found

    plugin = DALIGenericIterator([_pipeline(image_root)], ["data", "label"], reader_name="Reader",
                                 last_batch_policy=getattr(LastBatchPolicy, policy))
    reader = _reader(image_root)
    ours = EpochIterator([ReaderStream(_steps(reader), {"Reader": reader}, 3)], ["data", "label"],
                         reader_name="Reader", last_batch_policy=policy)
    assert epochs(ours) == epochs(plugin)


def test_jax_epoch_iterator_gives_jax_arrays(image_root):
    jnp = pytest.importorskip("jax.numpy")
    from dali_migrate.runtime.jax_iterator import JaxEpochIterator
    from dali_migrate.runtime.reader_stream import ReaderStream

    reader = _reader(image_root)
    loader = JaxEpochIterator([ReaderStream(_steps(reader), {"Reader": reader}, 3)], ["data", "label"],
                              reader_name="Reader", last_batch_policy="DROP")
    labels = [batch["label"] for batch in loader]
    assert len(labels) == len(loader) == 2 and all(isinstance(x, jnp.ndarray) for x in labels)
    assert [x.reshape(-1).tolist() for x in labels] == [[0, 0, 0], [1, 1, 2]]

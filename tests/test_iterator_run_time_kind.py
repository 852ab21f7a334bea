"""The EpochIterator decides at run time which kind of pipeline it was given (DM241): over pipelines still in
pipeline mode (an nvidia.dali Pipeline, say from a module the migration kept) it is the plugin's own iterator.

Each test runs the very helper text the migration writes against the installed plugin (real DALI, CPU, small
generated JPEGs), over two identical pipeline-mode pipelines: one for the plugin, one for the EpochIterator.
"""

from __future__ import annotations

import pytest
from nvidia.dali import fn, pipeline_def, types

from dali_migrate.transforms.unroll import helpers
from runtime import make_images

torch = pytest.importorskip("torch")
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy  # noqa: E402


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    return make_images(tmp_path_factory.mktemp("kind_images"), count=10, classes=10)


@pytest.fixture(scope="module")
def helper():
    namespace = {}
    exec(compile(helpers.module_text(), "dali_dynamic_compat.py", "exec"), namespace)  # the text the migration writes
    return namespace


@pipeline_def(num_threads=2, device_id=None)
def labels_pipe(root, pad=False, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=root, pad_last_batch=pad, shard_id=shard_id, num_shards=num_shards,
                                    name="Reader")
    return labels + 100, labels


def _source(n):
    """An external source of n samples an epoch, ending each with StopIteration (batch of samples i..)."""
    def batches():
        import numpy as np

        for start in range(0, n, 4):
            yield [np.array([i], dtype=np.int32) for i in range(start, min(start + 4, n))]
    return batches


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def source_pipe(n):
    return fn.external_source(source=_source(n), cycle="raise", dtype=types.INT32), fn.external_source(
        source=_source(n), cycle="raise", dtype=types.INT32)


def _epochs(loader, epochs=4, key="label"):
    """Each epoch: the plugin's counts, then every step's labels of every pipeline; then reset()."""
    seen = []
    for _ in range(epochs):
        counted = (loader._size, loader.size, len(loader) if loader._size > 0 or loader._reader_name else None,
                   loader.batch_size, list(loader.output_map), loader._num_gpus)
        steps = [[batch[key].view(-1).tolist() for batch in step] for step in loader]
        loader.reset()
        seen.append((counted, steps))
    return seen


_GRID = [(policy, pad, how, auto_reset, pipes)
         for policy in ("FILL", "DROP", "PARTIAL") for pad in (False, True) for how in ("reader", "size10", "size7")
         for auto_reset in (False, True) for pipes in (1, 2)]


@pytest.mark.parametrize("policy, pad, how, auto_reset, pipes", _GRID)
def test_pipeline_mode_pipelines_give_what_the_plugin_gives(image_root, helper, policy, pad, how, auto_reset, pipes):
    """Outputs (labels of every step of 4 epochs), size/_size/len(), batch_size, output_map and _num_gpus over
    pipeline-mode pipelines, for every policy, padded or not, with reader_name= or size=, auto_reset or not, one
    pipeline or two (one per shard): the EpochIterator's are the plugin's. The policy is given to the
    EpochIterator by name, as the migration writes it."""
    def make():
        return [labels_pipe(str(image_root), pad=pad, shard_id=k, num_shards=pipes, batch_size=3)
                for k in range(pipes)]

    options = {"reader": dict(reader_name="Reader"), "size10": dict(size=10), "size7": dict(size=7)}[how]
    options["auto_reset"] = auto_reset
    if not pad:
        options["last_batch_padded"] = False
    want = _epochs(DALIGenericIterator(make(), ["data", "label"], last_batch_policy=LastBatchPolicy[policy],
                                       **options))
    got = _epochs(helper["EpochIterator"](make(), ["data", "label"], last_batch_policy=policy, **options))
    assert got == want
    assert any(steps for _, steps in want)


@pytest.mark.parametrize("auto_reset", [False, True])
def test_external_source_epochs_as_the_plugin(helper, auto_reset):
    """No size, no reader: each epoch lasts until the source raises StopIteration, as the plugin's."""
    want = _epochs(DALIGenericIterator(source_pipe(10), ["data", "label"], auto_reset=auto_reset), epochs=3)
    got = _epochs(helper["EpochIterator"](source_pipe(10), ["data", "label"], auto_reset=auto_reset), epochs=3)
    assert got == want
    assert [steps for _, steps in got][0] == [[[0, 1, 2, 3]], [[4, 5, 6, 7]], [[8, 9]]]


def test_positional_arguments_and_fill_last_batch_bind_as_the_plugins(image_root, helper):
    """The EpochIterator takes the plugin's signature, by position too (size, reader_name, auto_reset,
    fill_last_batch, ...), so a call or a **kwargs forwarded from a wrapper needs no rewrite."""
    def run(cls):
        loader = cls(labels_pipe(str(image_root), batch_size=4), ["data", "label"], -1, "Reader", True, False)
        return [[b[0]["label"].view(-1).tolist() for b in loader] for _ in range(2)], loader._last_batch_policy

    want, got = run(DALIGenericIterator), run(helper["EpochIterator"])
    assert got == want and want[1] == LastBatchPolicy.PARTIAL


def test_classification_iterator_over_pipeline_mode(image_root, helper):
    """DALIClassificationIterator(pipe, ...) migrates to EpochIterator(pipe, ["data", "label"], ...)."""
    want = _epochs(DALIClassificationIterator(labels_pipe(str(image_root), batch_size=4), reader_name="Reader",
                                              last_batch_policy=LastBatchPolicy.PARTIAL))
    got = _epochs(helper["EpochIterator"](labels_pipe(str(image_root), batch_size=4), ["data", "label"],
                                          reader_name="Reader", last_batch_policy="PARTIAL"))
    assert got == want


def test_image_outputs_are_the_plugins_tensors(image_root, helper):
    """The data itself (decoded images, one dtype and shape per batch) is the plugin's, tensor for tensor."""
    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def images(root):
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        return fn.resize(fn.decoders.image(jpegs), size=(8, 8)), labels

    plugin = DALIGenericIterator(images(str(image_root)), ["data", "label"], reader_name="Reader")
    ours = helper["EpochIterator"](images(str(image_root)), ["data", "label"], reader_name="Reader")
    for want, got in zip(plugin, ours):
        for name in ("data", "label"):
            assert got[0][name].dtype == want[0][name].dtype and torch.equal(got[0][name], want[0][name])


def _subclass_run(cls, root):
    """A wrapper as real training code writes one: it adapts the output, counts its resets, reads the plugin's
    state, and its reset() is what the plugin's auto_reset calls."""
    class Loader(cls):
        def __init__(self, pipe, size, **kw):
            self.resets = 0
            super().__init__(pipe, ["data", "label"], size=size, auto_reset=True, **kw)

        def __next__(self):
            out = super().__next__()[0]
            return out["data"].shape[0], out["label"].squeeze(-1).long().tolist()

        def reset(self):
            self.resets += 1
            super().reset()

    loader = Loader(labels_pipe(root, batch_size=4), 10, last_batch_policy=LastBatchPolicy.DROP)
    epochs = [list(loader) for _ in range(3)]
    return epochs, loader.resets, len(loader._pipes), loader.next()


def test_subclass_over_pipeline_mode_is_the_plugins(image_root, helper):
    """class Loader(EpochIterator) over a pipeline-mode pipeline: its __next__ over super().__next__(), its
    reset() called by the plugin's auto_reset, the plugin's private state (self._pipes) and next()."""
    want = _subclass_run(DALIGenericIterator, str(image_root))
    got = _subclass_run(helper["EpochIterator"], str(image_root))
    assert got == want and want[1] >= 3


def _first_batch_run(cls, root, first=True):
    """A subclass that hands out the plugin's prepared first batch itself (reading and clearing self._first_batch,
    which the plugin's state holds), sets attributes before super().__init__, and reads the private counts."""
    class Loader(cls):
        def __init__(self, pipe):
            self.batch_size = 99  # the plugin's constructor sets its own
            self.output_map = ["data", "label"]
            super().__init__(pipe, self.output_map, reader_name="Reader", auto_reset=True, prepare_first_batch=first)

        def __next__(self):
            if self._first_batch is not None:
                batch = self._first_batch
                self._first_batch = None
                return ("first", batch[0]["label"].view(-1).tolist())
            return ("step", super().__next__()[0]["label"].view(-1).tolist(), int(self._counter))

    loader = Loader(labels_pipe(root, batch_size=4))
    made = (loader.batch_size, int(loader._counter), loader._first_batch is not None, loader._ever_consumed,
            loader._last_batch_policy, loader._auto_reset)
    return made, [list(loader) for _ in range(3)]


@pytest.mark.parametrize("first", [True, False])
def test_subclass_reading_the_first_batch_over_pipeline_mode_is_the_plugins(image_root, helper, first):
    """Over pipeline-mode pipelines the subclass's writes of the plugin's state (self._first_batch = None) reach the
    plugin's iterator, which holds it: the first batch is given once, as by the plugin (not again by the plugin's
    own __next__), and what the subclass set before super().__init__ is what the plugin's constructor set."""
    want = _first_batch_run(DALIGenericIterator, str(image_root), first)
    got = _first_batch_run(helper["EpochIterator"], str(image_root), first)
    assert got == want
    assert want[0][0] == 4 and (want[1][0][0][0] == "first") == first


def test_other_values_are_refused_with_a_clear_error(helper):
    """Neither a Pipeline nor a migrated pipeline that knows its batch size: a TypeError that says what to pass."""
    with pytest.raises(TypeError, match="batch_size="):
        helper["EpochIterator"](iter([]), ["data"])


def test_jax_iterator_over_pipeline_mode_is_the_jax_plugins(image_root, helper):
    """JaxEpochIterator over a pipeline-mode pipeline: the JAX plugin's own iterator (arrays, epochs, size)."""
    jax_plugin = pytest.importorskip("nvidia.dali.plugin.jax")
    import numpy as np

    def run(cls):
        loader = cls(labels_pipe(str(image_root), batch_size=4), ["data", "label"], reader_name="Reader",
                     last_batch_policy="DROP" if cls is helper["JaxEpochIterator"] else LastBatchPolicy.DROP)
        epochs = []
        for _ in range(2):
            epochs.append([np.asarray(step["label"]).reshape(-1).tolist() for step in loader])
            loader.reset()
        return epochs, loader.size, len(loader), type(np.asarray(next(loader)["data"])).__name__

    want = run(jax_plugin.DALIGenericIterator)
    got = run(helper["JaxEpochIterator"])
    assert got == want and want[0][0]

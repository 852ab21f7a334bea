"""The facts the migration of user iterator classes rests on (capability 7), run on the installed DALI:
``feed_ndarray(tl.as_tensor(), t)`` and ``to_torch_type[sample.dtype]`` of pipeline mode against the forms
they become, ``t.copy_(ndd.as_tensor(batch).torch())`` and ``ndd.as_tensor(batch).torch().dtype``."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nvidia.dali import fn, pipeline_def, types  # noqa: E402
import nvidia.dali.experimental.dynamic as ndd  # noqa: E402
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type  # noqa: E402

SAMPLES = [np.arange(12, dtype=np.float32).reshape(3, 4) * k for k in range(1, 4)]


@pytest.mark.parametrize("dtype", [types.UINT8, types.INT32, types.FLOAT, types.FLOAT16])
def test_feed_ndarray_and_its_migration_copy_the_same(dtype):
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def source():
        return fn.cast(fn.external_source(source=lambda: SAMPLES, batch=True), dtype=dtype)

    pipe = source()
    pipe.build()
    (tl,) = pipe.run()
    dense = tl.as_tensor()
    torch_type = to_torch_type[dense.dtype]
    fed = feed_ndarray(dense, torch.zeros(dense.shape(), dtype=torch_type))

    batch = ndd.cast(ndd.as_batch(SAMPLES), dtype=dtype)
    tensor = ndd.as_tensor(batch)
    assert tensor.torch().dtype == torch_type  # to_torch_type[x.dtype] -> x.torch().dtype
    assert list(tensor.shape) == dense.shape()  # x.shape() -> list(x.shape)
    copied = torch.zeros(list(tensor.shape), dtype=tensor.torch().dtype).copy_(tensor.torch())
    assert copied.dtype == fed.dtype and torch.equal(copied, fed)


def test_to_torch_type_is_keyed_by_the_pipeline_dtype_only():
    """The plugin's table takes a types.DALIDataType; an ndd DType is not a key (hence the rewrite)."""
    tensor = ndd.as_tensor(ndd.as_batch(SAMPLES))
    with pytest.raises(KeyError):
        to_torch_type[tensor.dtype]
    assert to_torch_type[tensor.dtype.type_id] == tensor.torch().dtype == torch.float32


def test_copy_into_a_buffer_keeps_its_dtype_and_device():
    """copy_ writes into the tensor the user made (double buffering reuses it): same object, its dtype kept."""
    tensor = ndd.as_tensor(ndd.as_batch([np.full((2,), 7, dtype=np.int32)] * 2))
    buffer = torch.zeros((2, 2), dtype=torch.int32)
    assert buffer.copy_(tensor.torch()) is buffer
    assert buffer.dtype == torch.int32 and buffer.device.type == "cpu" and buffer.sum().item() == 28


# -- an iterator class given its pipelines from elsewhere (DM242, ReaderStream.adapt) -------------------------------

def _loader_steps(module, pipes, epochs=2):
    """What the module's DoubleBufferedLoader gives over ``pipes``, two epochs, as numpy copies."""
    loader = module.DoubleBufferedLoader(pipes, ["images", "labels"], 5)
    got = []
    for _ in range(epochs):
        for batches in loader:
            got.append([{name: tensor.numpy().copy() for name, tensor in batch.items()} for batch in batches])
        loader.reset()
    return got, len(loader), loader.batch_size


def _assert_same(expected, got):
    assert len(got) == len(expected) > 0
    for want, have in zip(expected, got):
        assert [sorted(b) for b in want] == [sorted(b) for b in have]
        for a, b in zip(want, have):
            for name in a:
                assert a[name].dtype == b[name].dtype and np.array_equal(a[name], b[name]), name


def test_an_iterator_class_adapts_migrated_and_pipeline_mode_pipelines(tmp_path):
    """The module of golden/runnable/iterator_class_pipes_elsewhere migrated alone: its loader, given the module's
    migrated pipelines or nvidia.dali Pipelines of the original module (a caller not migrated), gives what the
    original loader gave over the original pipelines, batch for batch; device_id, max_batch_size and epoch_size
    answer as the Pipeline's."""
    from runtime import GOLDEN, load, make_images, on_cpu

    from dali_migrate.api import migrate_source

    root = str(make_images(tmp_path / "images"))
    source = (GOLDEN / "runnable" / "iterator_class_pipes_elsewhere" / "pipes.py").read_text()
    result = migrate_source(source, "pipes.py")
    assert result.error is None and "# dali-migrate:" not in result.migrated
    assert "ReaderStream.adapt(pipelines)" in result.migrated and "share_outputs" not in result.migrated
    assert "DM242" in {f.rule for f in result.findings}
    original, migrated = load(on_cpu(source), "pipes_original"), load(on_cpu(result.migrated), "pipes_migrated")

    def shards(module):
        return [module.ShardPipeline(root, batch_size=2, num_threads=2, device_id=None, shard_id=s, num_shards=2)
                for s in range(2)]

    expected = _loader_steps(original, shards(original))
    for pipes in (shards(migrated), shards(original)):  # migrated pipelines, then nvidia.dali Pipelines
        got = _loader_steps(migrated, pipes)
        _assert_same(expected[0], got[0])
        assert got[1:] == expected[1:]

    adapted = migrated.ReaderStream.adapt(shards(original))
    plain = shards(original)
    assert isinstance(adapted, list) and len(adapted) == 2
    assert [a.epoch_size("Reader") for a in adapted] == [p.epoch_size("Reader") for p in plain]
    assert adapted[0].reader_meta("Reader") == plain[0].reader_meta("Reader")
    assert adapted[0].device_id is None and adapted[0].max_batch_size == plain[0].max_batch_size == 2
    own = shards(migrated)[0]
    assert migrated.ReaderStream.adapt(own) is own  # a migrated pipeline stays as it is
    assert own.device_id is None and own.epoch_size("Reader") == plain[0].epoch_size("Reader")


def test_adapted_steps_are_copies_the_next_run_does_not_overwrite(tmp_path):
    """ReaderStream.adapt copies each run()'s outputs (ndd.batch): a step kept while later ones run keeps its values,
    which a zero-copy ndd.as_batch of the TensorList would not promise (the pipeline reuses its buffers)."""
    from runtime import GOLDEN, load, make_images, on_cpu

    from dali_migrate.api import migrate_source

    root = str(make_images(tmp_path / "images"))
    source = (GOLDEN / "runnable" / "iterator_class_pipes_elsewhere" / "pipes.py").read_text()
    migrated = load(on_cpu(migrate_source(source, "pipes.py").migrated), "pipes_copies")
    original = load(on_cpu(source), "pipes_copies_original")
    reference = original.ShardPipeline(root, batch_size=2, num_threads=2, device_id=None)
    expected = [np.array(out.as_tensor()) for out in reference.run()]
    stream = migrated.ReaderStream.adapt(original.ShardPipeline(root, batch_size=2, num_threads=2, device_id=None))
    first = next(stream)
    for _ in range(6):
        next(stream)
    kept = [ndd.as_tensor(batch).torch().numpy() for batch in first]
    assert len(kept) == len(expected) == 2
    for want, have in zip(expected, kept):
        assert want.dtype == have.dtype and np.array_equal(want, have)

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

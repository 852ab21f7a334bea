"""What has no faithful Batch counterpart is marked, not rewritten."""

import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd


def pipe_def(*, batch_size=4, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    if seed is not None:
        ndd.random.set_seed(seed)
    while True:
        values = ndd.random.uniform(range=(0, 1), shape=3, batch_size=batch_size)
        # dali-migrate: DM125 DataNode.shape() is a per-sample graph value; in dynamic mode batch.shape is a Python list of tuples (use it, or ndd.as_batch(batch.shape) for a Batch)
        shape = values.shape()
        yield values, shape


pipe = pipe_def()
values, shape = next(pipe)
# dali-migrate: DM122 TensorList.is_dense_tensor() has no ndd.Batch counterpart: rewrite with the Batch API (batch.shape, ndd.as_tensor(batch, pad=True), batch.torch())
if values.is_dense_tensor():
    # dali-migrate: DM123 slicing a pipeline output: Batch.select(slice) returns the whole batch in DALI 2.4.0; use ndd.as_batch([batch.select(i) for i in range(a, b)])
    head = values[0:2]
# dali-migrate: DM122 Batch.dtype is an ndd.DType: comparing it with a types.DALIDataType raises AttributeError; compare with ndd.float32 etc.
if values.dtype == types.FLOAT:
    # dali-migrate: DM122 TensorList.as_reshaped_tensor() has no ndd.Batch counterpart: rewrite with the Batch API (batch.shape, ndd.as_tensor(batch, pad=True), batch.torch())
    print(values.as_reshaped_tensor([4, 3]))

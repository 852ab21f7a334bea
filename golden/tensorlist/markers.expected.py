"""What has no faithful Batch counterpart is marked, not rewritten."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


# dali-migrate: DM230 pipe_def stays in pipeline mode with everything that uses it: line 19: slicing a pipeline output: Batch.select(slice) returns the whole batch in DALI 2.4.0; use ndd.as_batch([batch.select(i) for i in range(a, b)]); line 20: Batch.dtype is an ndd.DType: comparing it with a types.DALIDataType raises AttributeError; compare with ndd.float32 etc.; line 21: TensorList.as_reshaped_tensor() has no ndd.Batch counterpart: rewrite with the Batch API (batch.shape, ndd.as_tensor(batch, pad=True), batch.torch())
@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def pipe_def():
    values = fn.random.uniform(range=(0, 1), shape=3)
    shape = (values * 2).shape()
    return values, shape


pipe = pipe_def()
pipe.build()
values, shape = pipe.run()
if values.is_dense_tensor():
    # dali-migrate: DM123 slicing a pipeline output: Batch.select(slice) returns the whole batch in DALI 2.4.0; use ndd.as_batch([batch.select(i) for i in range(a, b)])
    head = values[0:2]
# dali-migrate: DM122 Batch.dtype is an ndd.DType: comparing it with a types.DALIDataType raises AttributeError; compare with ndd.float32 etc.
if values.dtype == types.FLOAT:
    # dali-migrate: DM122 TensorList.as_reshaped_tensor() has no ndd.Batch counterpart: rewrite with the Batch API (batch.shape, ndd.as_tensor(batch, pad=True), batch.torch())
    print(values.as_reshaped_tensor([4, 3]))

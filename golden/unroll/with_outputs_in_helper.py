"""A `with pipe:` block whose outputs a helper sets: the block hands the pipeline to it."""
import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


def finish(pipeline, data):
    pipeline.set_outputs(data * 2)


def make(root):
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        data = fn.readers.numpy(file_root=root)
        finish(pipe, data)
    return pipe


pipe = make("/data")
pipe.build()
out, = pipe.run()
print(out.as_array().shape)

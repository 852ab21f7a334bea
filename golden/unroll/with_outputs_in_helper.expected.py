"""A `with pipe:` block whose outputs a helper sets: the block hands the pipeline to it."""
import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


# dali-migrate: DM230 finish builds part of pipe, which stays in pipeline mode with everything that uses it: line 12: pipe stays in pipeline mode: `with pipe:` does not end with pipe.set_outputs(...): it hands pipe to finish(...), and the tool does not follow a pipeline into another function to find where its outputs are set
def finish(pipeline, data):
    pipeline.set_outputs(data * 2)


def make(root):
    # dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 12: pipe stays in pipeline mode: `with pipe:` does not end with pipe.set_outputs(...): it hands pipe to finish(...), and the tool does not follow a pipeline into another function to find where its outputs are set
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
    # dali-migrate: DM212 pipe stays in pipeline mode: `with pipe:` does not end with pipe.set_outputs(...): it hands pipe to finish(...), and the tool does not follow a pipeline into another function to find where its outputs are set
    with pipe:
        data = fn.readers.numpy(file_root=root)
        finish(pipe, data)
    return pipe


pipe = make("/data")
pipe.build()
out, = pipe.run()
print(out.as_array().shape)

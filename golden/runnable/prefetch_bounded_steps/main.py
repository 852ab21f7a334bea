"""A look at a few batches, as a notebook turned into a script does: two steps, no loop, nothing imports it."""

import sys

from nvidia.dali import fn, pipeline_def

from stats import describe


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def features(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Features")
    return data, fn.reductions.sum(data, axes=[1])


def show(pipe):
    data, sums = pipe.run()
    print("data", describe(data), "sums[0]", sums.at(0).tolist())


pipe = features(sys.argv[1])
pipe.build()
print("files", pipe.epoch_size("Features"))
show(pipe)
data, sums = pipe.run()
print("second step", describe(data))

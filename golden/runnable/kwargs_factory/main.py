"""Configuration passed through: the pipeline's own arguments and the Pipeline options in one dict."""
import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def
def flexible(*roots, shuffle=False, size=12):
    jpegs, labels = fn.readers.file(file_root=roots[0], random_shuffle=shuffle, seed=3, name="Files")
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=size, resize_y=size), labels


def make(*args, **kwargs):
    pipe = flexible(*args, **kwargs)
    pipe.build()
    return pipe


CONFIG = dict(batch_size=3, num_threads=1, device_id=None, prefetch_queue_depth=1, exec_async=False,
              exec_pipelined=False, size=8)


if __name__ == "__main__":
    pipe = make(sys.argv[1], shuffle=True, **CONFIG)
    print("epoch", pipe.epoch_size("Files"))
    for step in range(4):
        images, labels = pipe.run()
        print(step, labels.as_array().ravel().tolist(), images.as_array().shape, int(images.as_array().sum()))

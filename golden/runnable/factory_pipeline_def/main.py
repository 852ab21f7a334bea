"""A factory builds and returns the pipeline; its callers use the pipeline-mode API on it."""

import argparse

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def
def eval_pipe(root, size):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", pad_last_batch=True)
    images = fn.decoders.image(jpegs, device="mixed")
    images = fn.resize(images, resize_x=size, resize_y=size)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[128.0, 128.0, 128.0], std=[64.0, 64.0, 64.0])
    return images, labels


def make_pipeline(root, batch_size, size=16):
    pipe = eval_pipe(root, size, batch_size=batch_size, num_threads=2, device_id=0)
    pipe.build()
    return pipe


def steps_per_epoch(pipe, batch_size):
    return int(np.ceil(pipe.epoch_size("Reader") / batch_size))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--batch", type=int, default=4)
    args = parser.parse_args()

    pipe = make_pipeline(args.data, args.batch)
    steps = steps_per_epoch(pipe, args.batch)
    print("epoch size", pipe.epoch_size("Reader"), "steps", steps)
    for step in range(steps):
        images, labels = pipe.run()
        array = images.as_array()
        print(f"step {step}: {len(images)} images {array.shape} {array.dtype} "
              f"mean {array.mean():.5f} labels {labels.as_array().ravel().tolist()}")
        print("  first channel-0 row", np.round(images.at(0)[0, 0, :4], 4).tolist())


if __name__ == "__main__":
    main()

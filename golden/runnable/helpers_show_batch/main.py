"""Look at a few batches: the pipeline's outputs go through small helpers that take whole batches."""

import argparse

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def preview_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=24, resize_y=16)
    return images, labels


def show(batch, title):
    """Print one line per sample, as a plotting helper would draw one panel per sample."""
    print(f"{title}: {len(batch)} samples")
    for i in range(len(batch)):
        sample = batch.at(i)
        print(f"  [{i}] shape={sample.shape} dtype={sample.dtype} mean={sample.mean():.4f}")


def to_numpy(batch):
    return [np.array(batch.at(i)) for i in range(len(batch))]


def label_list(labels):
    return [int(labels.at(i)[0]) for i in range(len(labels))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()

    pipe = preview_pipe(args.data)
    pipe.build()
    for step in range(args.steps):
        outputs = pipe.run()
        show(outputs[0].as_cpu(), f"step {step} images")
        arrays = to_numpy(outputs[0].as_cpu())
        print("stacked", np.stack(arrays).shape, "total", int(np.stack(arrays).astype(np.int64).sum()))
        print("labels", label_list(outputs[1]))
        for s in range(2):
            first = np.array(outputs[0].as_cpu()[s])
            print(f"  outputs[0][{s}] corner", first[0, 0].tolist())


if __name__ == "__main__":
    main()

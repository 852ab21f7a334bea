"""One pipeline per GPU, each reading the shard of the GPU it runs on, all fed through one PyTorch iterator.

The pipeline function asks the pipeline being built for its device (Pipeline.current().device_id) and batch
size; each step of the iterator is a list of one dict per pipeline.
"""

import argparse

from nvidia.dali import Pipeline, fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def
def gpu_pipeline(data_dir, num_gpus):
    device_id = Pipeline.current().device_id
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=device_id, num_shards=num_gpus,
                                    random_shuffle=True, seed=7, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=6, resize_y=6)
    # the label, offset by the batch size, as a second target
    shifted = fn.cast(labels, dtype=types.INT32) + Pipeline.current().batch_size
    return images, labels, shifted


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--batch", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()

    pipes = [gpu_pipeline(batch_size=args.batch, num_threads=2, device_id=device_id, data_dir=args.data,
                          num_gpus=args.gpus) for device_id in range(args.gpus)]
    for pipe in pipes:
        pipe.build()
    loader = DALIGenericIterator(pipes, ["data", "label", "shifted"], reader_name="Reader")

    for epoch in range(args.epochs):
        print(f"epoch {epoch}: len {len(loader)} size {loader.size}")
        for i, data in enumerate(loader):
            for gpu, d in enumerate(data):
                labels = d["label"].view(-1).tolist()
                assert (d["shifted"].view(-1) - d["label"].view(-1) == args.batch).all()
                mean = round(d["data"].float().mean().item(), 3)
                print(f"  step {i} pipeline {gpu}: labels {labels} data {tuple(d['data'].shape)} mean {mean}")
        loader.reset()


if __name__ == "__main__":
    main()

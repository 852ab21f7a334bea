"""Feeding JAX through the JAX plugin's DALIGenericIterator: a reader_name-driven epoch (FILL and DROP over
two epochs), jax.Array outputs used in a jitted function."""

import argparse

import jax
import jax.numpy as jnp
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.base_iterator import LastBatchPolicy
from nvidia.dali.plugin.jax import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def image_pipe(root, shuffle):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=shuffle, seed=23, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=6, resize_y=6)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="HWC", mean=[0.0] * 3,
                                      std=[255.0] * 3)
    return images, labels


@jax.jit
def brightness(images):
    return jnp.mean(images, axis=(1, 2, 3))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    shuffled = image_pipe(args.data, True)
    fill = DALIGenericIterator([shuffled], ["images", "labels"], reader_name="Reader",
                               last_batch_policy=LastBatchPolicy.FILL, auto_reset=True)
    in_order = image_pipe(args.data, False)
    drop = DALIGenericIterator([in_order], ["images", "labels"], reader_name="Reader",
                               last_batch_policy=LastBatchPolicy.DROP, auto_reset=True)
    for name, loader in (("FILL", fill), ("DROP", drop)):
        print(name, "len", len(loader), "size", loader.size)
        for epoch in range(args.epochs):
            for i, batch in enumerate(loader):
                images, labels = batch["images"], batch["labels"]
                print(f"{name} epoch {epoch} batch {i}: {images.shape} {images.dtype} "
                      f"brightness {[round(float(b), 5) for b in brightness(images)]} "
                      f"labels {labels.ravel().tolist()}")

if __name__ == "__main__":
    main()

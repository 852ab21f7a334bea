"""Python callbacks inside pipelines: per sample, per batch, in place, and over DLPack with torch."""

import hashlib
import sys

import numpy as np
import torch
import torch.utils.dlpack as torch_dlpack
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.pipeline import Pipeline


def split_halves(left, right):
    """Swap the left halves of two images of one shape (two outputs per sample)."""
    width = left.shape[1] // 2
    first, second = left.copy(), right.copy()
    first[:, :width], second[:, :width] = right[:, :width], left[:, :width]
    return first, second


def brighten_in_place(image):
    image += 7  # writes into the buffer DALI handed over
    return image


def column_sums(images):
    """Per batch: one int64 vector per sample (the list of all samples comes in at once)."""
    return [image.astype(np.int64).sum(axis=(0, 2)) for image in images]


def scaled_reversed(capsules):
    tensors = [torch_dlpack.from_dlpack(capsule) for capsule in capsules]
    scaled = [(tensor.to(torch.float32) / 255.0).sqrt() for tensor in tensors]
    scaled.reverse()
    return [torch_dlpack.to_dlpack(tensor) for tensor in scaled]


def flipped(image):
    return image[::-1]  # a strided view


@pipeline_def(batch_size=4, num_threads=2, device_id=0, exec_async=False, exec_pipelined=False)
def callbacks(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=8, resize_y=6)
    mirrored = fn.flip(images, horizontal=1)
    left, right = fn.python_function(images, mirrored, function=split_halves, num_outputs=2)
    brighter = fn.python_function(images, function=brighten_in_place)
    sums = fn.python_function(images, function=column_sums, batch_processing=True, output_layouts="W")
    roots = fn.dl_tensor_python_function(images, function=scaled_reversed)
    return images, left, right, brighter, sums, roots, labels


def describe(name, batch):
    arrays = [np.array(batch.at(i)) for i in range(len(batch))]
    digest = hashlib.sha1(b"".join(a.tobytes() for a in arrays)).hexdigest()[:16]  # bit for bit
    print(f"{name}: {arrays[0].dtype} {[a.shape for a in arrays]} layout {batch.layout()!r} bytes {digest}")


if __name__ == "__main__":
    pipe = callbacks(sys.argv[1])
    pipe.build()
    for step in range(3):
        for name, batch in zip(("images", "left", "right", "brighter", "sums", "roots", "labels"), pipe.run()):
            describe(f"step {step} {name}", batch)

    flip_pipe = Pipeline(batch_size=3, num_threads=2, device_id=0, exec_async=False, exec_pipelined=False)
    with flip_pipe:
        jpegs, _ = fn.readers.file(file_root=sys.argv[1])
        small = fn.resize(fn.decoders.image(jpegs, output_type=types.GRAY), resize_x=5, resize_y=4)
        flipped = fn.python_function(small, function=flipped, output_layouts="HWC")
        flip_pipe.set_outputs(small, flipped)
    flip_pipe.build()
    for step in range(2):
        small_batch, flipped_batch = flip_pipe.run()
        describe(f"flip {step} small", small_batch)
        describe(f"flip {step} flipped", flipped_batch)
        print("flipped matches", all(np.array_equal(np.array(small_batch.at(i))[::-1], np.array(flipped_batch.at(i)))
                                     for i in range(len(small_batch))))

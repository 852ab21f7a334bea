"""Several reader pipelines checked in one loop: each entry pairs a pipeline function with the label
range its reader must give, and the loop names the function it runs."""

import sys

import torch
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIGenericIterator

IMAGES, FILE_LIST = sys.argv[1], sys.argv[2]


def common(jpegs, labels):
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=5, resize_y=5)
    return images, labels


@pipeline_def
def folder_pipeline(root):
    """Images from class folders."""
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return common(jpegs, labels)


@pipeline_def
def list_pipeline(root, listing):
    """Images from a file list."""
    jpegs, labels = fn.readers.file(file_root=root, file_list=listing, name="Reader")
    return common(jpegs, labels)


pipe_types = [
    [folder_pipeline, (0, 1), (IMAGES,)],
    [list_pipeline, (0, 2), (IMAGES, FILE_LIST)],
]

for pipe_t in pipe_types:
    pipe_fn, label_range, args = pipe_t
    print("RUN: " + pipe_fn.__name__, pipe_fn.__qualname__, pipe_fn.__module__, pipe_fn.__doc__)
    pipe = pipe_fn(*args, batch_size=3, num_threads=2, device_id=0)
    loader = DALIGenericIterator([pipe], ["data", "label"], reader_name="Reader")
    for i, data in enumerate(loader):
        for d in data:
            label = d["label"]
            image = d["data"]
            assert (label >= label_range[0]).all()
            assert (label <= label_range[1]).all()
            print(f"  batch {i}: {tuple(image.shape)} sum {image.float().sum().item():.0f} "
                  f"labels {label.view(-1).tolist()} in range {bool((label <= label_range[1]).all())}")
    print("OK : " + pipe_fn.__name__)

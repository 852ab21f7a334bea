"""The project's loaders: a factory the training script calls, and a smoke check of one batch when run alone."""

import sys

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(num_threads=2, device_id=0)
def augmented(root, size):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=11, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=size, resize_y=size)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[127.5] * 3, std=[127.5] * 3)
    return images, labels


def make_loader(root, batch_size=3, size=12):
    pipe = augmented(root, size, batch_size=batch_size)
    pipe.build()
    return DALIGenericIterator(pipe, ["images", "labels"], reader_name="Reader",
                               last_batch_policy=LastBatchPolicy.DROP, auto_reset=True)


if __name__ == "__main__":
    loader = make_loader(sys.argv[1])
    batch = next(iter(loader))
    print("one batch:", tuple(batch[0]["images"].shape))

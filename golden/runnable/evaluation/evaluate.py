"""Evaluate a fixed classifier over one padded epoch of a file-list dataset: accuracy and a confusion matrix."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types

CLASSES = 3


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def val_pipe(file_root, file_list):
    jpegs, labels = fn.readers.file(file_root=file_root, file_list=file_list, pad_last_batch=True,
                                    name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=8, resize_y=8)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[128.0] * 3, std=[64.0] * 3)
    return images, labels


def predict(images):
    """A fixed 'classifier': the channel with the largest mean is the class."""
    return images.mean(axis=(2, 3)).argmax(axis=1)


def evaluate(pipe, size, batch_size):
    confusion = np.zeros((CLASSES, CLASSES), dtype=np.int64)
    seen = 0
    while seen < size:
        images, labels = pipe.run()
        preds = predict(images.as_array())
        truth = labels.as_array().reshape(-1)
        keep = min(batch_size, size - seen)  # the padded tail repeats the last sample
        for t, p in zip(truth[:keep], preds[:keep]):
            confusion[t, p] += 1
        seen += keep
    return confusion


if __name__ == "__main__":
    pipe = val_pipe(sys.argv[1], sys.argv[2])
    pipe.build()
    size = pipe.epoch_size("Reader")
    confusion = evaluate(pipe, size, pipe.max_batch_size)
    print("samples", int(confusion.sum()), "of", size)
    print("accuracy", round(float(np.trace(confusion) / confusion.sum()), 4))
    for row in confusion:
        print("confusion", row.tolist())

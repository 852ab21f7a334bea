"""Validation through DALIClassificationIterator: FILL policy, explicit reset() between epochs."""

import sys

import torch
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


def build(root, batch_size):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=0)
    def val_pipe():
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
        images = fn.resize(images, resize_x=6, resize_y=6)
        return images, labels

    pipe = val_pipe()
    pipe.build()
    return pipe


class Evaluator:
    def __init__(self, pipe):
        self.loader = DALIClassificationIterator(pipe, reader_name="Reader",
                                                 last_batch_policy=LastBatchPolicy.FILL)

    def run_epoch(self):
        sums, labels = [], []
        for batch in self.loader:
            data = batch[0]["data"].float()
            sums.append(round(data.sum().item(), 1))
            labels += batch[0]["label"].view(-1).tolist()
        self.loader.reset()
        return sums, labels


if __name__ == "__main__":
    evaluator = Evaluator(build(sys.argv[1], 3))
    for epoch in range(2):
        sums, labels = evaluator.run_epoch()
        print(f"epoch {epoch}: {len(sums)} batches sums {sums} labels {labels}")

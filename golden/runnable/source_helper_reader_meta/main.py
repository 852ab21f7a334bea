"""Pipelines whose reader lives in another module's source helper, a @pipeline_def and a Pipeline subclass; the
program asks each pipeline for that reader's metadata by name (epoch_size, reader_meta) before its first step and
iterates it with a PyTorch iterator by reader_name."""
import argparse

from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

import graph_parts


@pipeline_def(batch_size=3, num_threads=2, device_id=None)
def eval_pipe(root):
    images, labels = graph_parts.labelled_images(root, 8)
    return images, labels


class EvalPipe(Pipeline):
    def __init__(self, root, batch_size):
        super().__init__(batch_size, 2, None)
        self.root = root

    def define_graph(self):
        images, labels = graph_parts.labelled_images(self.root, 6)
        return images, labels


def check(name, pipe):
    meta = pipe.reader_meta("Reader")
    print(name, "epoch size", pipe.epoch_size("Reader"), "padded", meta["epoch_size_padded"], "shards",
          meta["number_of_shards"], "pad", meta["pad_last_batch"])
    loader = DALIGenericIterator(pipe, ["images", "labels"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.PARTIAL)
    for epoch in range(2):
        for step, batch in enumerate(loader):
            images, labels = batch[0]["images"], batch[0]["labels"]
            print(name, epoch, step, tuple(images.shape), int(images.sum()), labels.ravel().tolist())
        loader.reset()
    print(name, "len", len(loader))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    args = parser.parse_args()
    pipe = eval_pipe(args.images)
    pipe.build()
    check("def", pipe)
    pipe = EvalPipe(args.images, 4)
    pipe.build()
    check("class", pipe)


if __name__ == "__main__":
    main()

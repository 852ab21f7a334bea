"""Loaders that extend the PyTorch iterators with constructors of their own, as image-classification
examples for training frameworks write them: the policy comes from a `drop_last`-style flag, the plugin's
arguments are passed on by position, and the loaders read the plugin's attributes (`_num_gpus`, `_size`,
`batch_size`) to say how many steps an epoch has."""

import argparse
import math

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


@pipeline_def(num_threads=2, device_id=0)
def small_images(root, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=4, resize_y=4), labels


class ClassificationLoader(DALIClassificationIterator):
    """len() in steps, and a flag instead of the policy enum."""

    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False, fill_last_batch=True,
                 last_batch_padded=False, policy_enum=True):
        if policy_enum:
            policy = LastBatchPolicy.FILL if fill_last_batch else LastBatchPolicy.DROP
            super().__init__(pipelines, size, reader_name, auto_reset, last_batch_policy=policy,
                             last_batch_padded=last_batch_padded)
        else:  # the deprecated flag: False is PARTIAL
            super().__init__(pipelines, size, reader_name, auto_reset, fill_last_batch,
                             last_batch_padded=last_batch_padded)

    def steps(self):
        return math.ceil(self._size / (self._num_gpus * self.batch_size))

    def __next__(self):
        out = super().__next__()
        return out[0]["data"], out[0]["label"].view(-1)


class PairLoader(DALIGenericIterator):
    """Positional arguments in the plugin's order: the fourth is auto_reset, the fifth fill_last_batch."""

    def __init__(self, pipes, names, flag):
        super(PairLoader, self).__init__(pipes, names, -1, "Reader", True, flag)
        self.names = names

    def next(self):
        step = super().next()
        return [[len(d[self.names[1]]) for d in step], self._num_gpus]


class FirstPipeline(DALIGenericIterator):
    """Only the first pipeline's dict; everything else as the caller passes it."""

    def __init__(self, pipe, **kwargs):
        super().__init__(pipe, **kwargs)

    def __next__(self):
        return super().__next__()[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    args = parser.parse_args()
    for fill, policy_enum in ((True, True), (False, True), (False, False)):
        loader = ClassificationLoader(small_images(args.root, batch_size=3), reader_name="Reader",
                                      fill_last_batch=fill, policy_enum=policy_enum)
        print(f"fill {fill} ({policy_enum}): steps {loader.steps()}, len {len(loader)}")
        for epoch in range(2):
            print("  epoch", epoch, [labels.tolist() for _, labels in loader])
            loader.reset()
    for flag in (None, False, True):
        pipes = [small_images(args.root, shard_id=k, num_shards=2, batch_size=2) for k in range(2)]
        loader = PairLoader(pipes, ["images", "labels"], flag)
        seen = []
        for _ in range(2):  # auto_reset: the next epoch follows the StopIteration
            try:
                while True:
                    seen.append(loader.next())
            except StopIteration:
                seen.append("end")
        print(f"flag {flag}: size {loader.size}, batches", seen)
    first = FirstPipeline(small_images(args.root, batch_size=4), output_map=["images", "labels"], reader_name="Reader",
                          auto_reset=True, dynamic_shape=True, last_batch_policy=LastBatchPolicy.PARTIAL)
    for epoch in range(2):
        print("first pipeline, epoch", epoch, [step["labels"].view(-1).tolist() for step in first])


if __name__ == "__main__":
    main()

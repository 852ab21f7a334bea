"""A data module whose PyTorch iterator leaves it: a trainer from another module runs the epochs, a
library call takes the first batches for a sanity check, and a small feeder class pulls batches with
.next(), as older training scripts do.

The iterator is kept in an attribute and returned from __iter__; every consumer uses only the
iterator's public API (iteration, next(), .next(), len(), size, batch_size, output_map, reset())."""

import itertools
import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

from trainer import Trainer


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def gray_digits(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=6, resize_y=6)
    return fn.cast(images, dtype=types.FLOAT), labels


class Feeder:
    """Pulls batches by hand, the way code written for the old iterator API does."""

    def __init__(self, loader, steps):
        self.loader, self.steps = loader, steps

    def pull(self):
        return [int(self.loader.next()[0]["labels"].sum()) for _ in range(self.steps)]


class DataModule:
    def __init__(self, root, policy):
        pipe = gray_digits(root)
        pipe.build()
        self.loader = DALIGenericIterator(pipe, ["images", "labels"], reader_name="Reader",
                                          last_batch_policy=policy)

    def __iter__(self):
        return self.loader

    def __len__(self):
        return len(self.loader)

    def __next__(self):
        return self.loader.next()


def first_batches(loader, n):
    return [tuple(batch[0]["images"].shape) for batch in itertools.islice(loader, n)]


if __name__ == "__main__":
    root = sys.argv[1]
    for name, policy in (("PARTIAL", LastBatchPolicy.PARTIAL), ("DROP", LastBatchPolicy.DROP)):
        data = DataModule(root, policy)
        print(f"{name}: len {len(data)}, size {data.loader.size}, batch {data.loader.batch_size}, "
              f"outputs {data.loader.output_map}, pipelines {data.loader._num_gpus}")
        print("  first batch label sum", int(next(data)[0]["labels"].sum()))
        print("  feeder", Feeder(data.loader, 2).pull())
        print("  rest of the epoch", [tuple(b[0]["labels"].shape) for b in data])
        data.loader.reset()
        print("  sanity shapes", first_batches(data.loader, 2))
        for epoch, (batches, total) in enumerate(Trainer(epochs=2).fit(data.loader)):
            print(f"  trainer epoch {epoch}: {batches} batches, pixel sum {total:.1f}")

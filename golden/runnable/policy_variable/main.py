"""A data module that picks its iterator's last-batch policy into a variable first (drop the ragged last
batch for training, keep it for validation), as speech-recognition data layers do."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.base_iterator import LastBatchPolicy
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def labelled_files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(images, resize_x=8, resize_y=8), labels


class DataLayer:
    def __init__(self, root, drop_last):
        self.pipe = labelled_files(root)
        self.pipe.build()
        last_batch_policy = LastBatchPolicy.DROP if drop_last else LastBatchPolicy.PARTIAL
        self.drops = last_batch_policy == LastBatchPolicy.DROP
        self._iter = DALIGenericIterator([self.pipe], ["images", "labels"], reader_name="Reader",
                                         last_batch_policy=last_batch_policy, auto_reset=True)

    def __iter__(self):
        return iter(self._iter)


if __name__ == "__main__":
    for drop_last in (True, False):
        layer = DataLayer(sys.argv[1], drop_last)
        print(f"drop_last {drop_last}: drops {layer.drops}")
        for epoch in range(2):
            sizes = [batch[0]["labels"].shape[0] for batch in layer]
            labels = sum(int(batch[0]["labels"].sum()) for batch in layer)
            print(f"  epoch {epoch}: batch sizes {sizes}, label sum of the next epoch {labels}")

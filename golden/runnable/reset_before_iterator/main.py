"""A datapipe class whose epoch() resets its pipeline "to enable epochs" before wrapping it in a fresh
DALIGenericIterator, as scientific-ML datapipes do; __len__ from the reader's epoch size."""

import sys

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def image_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", pad_last_batch=True)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=5, resize_y=5), labels


class Datapipe:
    def __init__(self, root):
        self.pipe = image_pipe(root)
        self.pipe.build()

    def epoch(self):
        # reset the pipeline before creating an iterator
        self.pipe.reset()
        return DALIGenericIterator([self.pipe], ["image", "label"], reader_name="Reader")

    def __len__(self):
        return self.pipe.epoch_size("Reader") // 3


if __name__ == "__main__":
    datapipe = Datapipe(sys.argv[1])
    print("len", len(datapipe))
    for epoch in range(3):
        for step, batch in enumerate(datapipe.epoch()):
            print(f"epoch {epoch} step {step}: image {tuple(batch[0]['image'].shape)} "
                  f"sum {int(batch[0]['image'].sum())} labels {batch[0]['label'].flatten().tolist()}")

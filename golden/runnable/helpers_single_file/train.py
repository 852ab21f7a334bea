"""One training script, migrated alone: a classification iterator over a sharded reader, three epochs."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=7)
def classify_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=5, name="Reader")
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=6, resize_y=6), labels


pipe = classify_pipe(sys.argv[1])
pipe.build()
loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.DROP)
for epoch in range(3):
    for step, batch in enumerate(loader):
        print(epoch, step, int(batch[0]["data"].sum()), batch[0]["label"].view(-1).tolist())
    loader.reset()

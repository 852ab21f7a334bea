"""Training data: a reader with a partial last batch, iterated the PyTorch way."""

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=5, resize_y=5), labels


def train_batches(root, epochs):
    pipe = train_pipe(root)
    pipe.build()
    loader = DALIGenericIterator([pipe], ["images", "labels"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            yield epoch, step, int(batch[0]["images"].sum()), batch[0]["labels"].view(-1).tolist()

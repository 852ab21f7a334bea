"""A wrapper that hands its *args/**kwargs to DALIGenericIterator but also reads them itself (args[0]): the model
cannot tell what that read gets once migrated, so the pipeline a caller passes there stays in pipeline mode (DM231)
and the iterator is left as it is, marked: the plugin's iterator over a Pipeline, as before. (The forwarding shape:
wrapper_forwarding_stars.py.)"""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Peek:
    def __init__(self, *args, **kwargs):
        self.first = args[0]
        self.inner = DALIGenericIterator(*args, **kwargs)


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def peeked(root):
    jpegs, _ = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs), jpegs


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def plain(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


def peek(root):
    seen = Peek(peeked(root), ["images", "files"], reader_name="Reader")
    print(seen.first.max_batch_size)
    images, labels = plain(root).run()
    print(images.shape(), labels.as_array())

"""Several readers in one pipeline: each reader is created once and read as its own endless stream
(its epochs end where its data does, as repeated pipe.run() read it), and the steps zip them."""
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def paired(images_root, arrays_root):
    jpegs, labels = fn.readers.file(file_root=images_root, random_shuffle=True, seed=5)
    # arrays read beside the images
    arrays = fn.readers.numpy(file_root=arrays_root)
    return fn.decoders.image(jpegs), arrays, labels

from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline


def create_loader_pipe(file_root, batch_size, size):
    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=0, seed=4)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=file_root, name="Reader")
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
        images = fn.resize(images, resize_x=size, resize_y=size)
        images = fn.normalize(fn.cast(images, dtype=types.FLOAT), mean=100.0, stddev=50.0)
        pipe.set_outputs(images, labels)
    return pipe

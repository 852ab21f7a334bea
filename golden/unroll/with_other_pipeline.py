"""A `with pipe:` block that closes another pipeline's set_outputs: the graph is that other pipeline's, built and
run as its own, and pipe runs on unchanged."""
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline

pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
with pipe:
    jpegs, labels = fn.readers.file(file_root="images")
    pipe.set_outputs(fn.decoders.image(jpegs), labels)
pipe.build()
images, labels = pipe.run()

gray_pipe = Pipeline(batch_size=4, num_threads=1, device_id=None)
with pipe:
    jpegs, _ = fn.readers.file(file_root="images")
    gray = fn.decoders.image(jpegs, output_type=types.GRAY)
    gray_pipe.set_outputs(gray > 100)
gray_pipe.build()
(bright,) = gray_pipe.run()

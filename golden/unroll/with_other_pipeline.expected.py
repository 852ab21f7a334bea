"""A `with pipe:` block that closes another pipeline's set_outputs: the graph is that other pipeline's, built and
run as its own, and pipe runs on unchanged."""
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd


def pipe_steps(*, batch_size=2):
    reader = ndd.readers.File(file_root="images")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs), labels


pipe = pipe_steps()
images, labels = next(pipe)


def gray_pipe_steps(*, batch_size=4):
    reader = ndd.readers.File(file_root="images")
    while True:
        for jpegs, _ in reader.next_epoch(batch_size=batch_size):
            gray = ndd.decoders.image(jpegs, output_type=types.GRAY)
            yield (gray > 100,)


gray_pipe = gray_pipe_steps()
(bright,) = next(gray_pipe)

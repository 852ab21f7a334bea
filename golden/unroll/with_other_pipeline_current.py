"""A `with pipe:` block that closes another pipeline's set_outputs and reads Pipeline.current(), which is pipe
there, not the pipeline built: it stays in pipeline mode, and says why."""
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline

pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
with pipe:
    jpegs, labels = fn.readers.file(file_root="images")
    pipe.set_outputs(fn.decoders.image(jpegs), labels)
pipe.build()

sized_pipe = Pipeline(batch_size=4, num_threads=1, device_id=None)
with pipe:
    jpegs, _ = fn.readers.file(file_root="images", shard_id=Pipeline.current().batch_size % 2, num_shards=2)
    sized_pipe.set_outputs(fn.decoders.image(jpegs))
sized_pipe.build()
(sized,) = sized_pipe.run()

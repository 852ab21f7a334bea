"""A `with pipe:` block that closes another pipeline's set_outputs and reads Pipeline.current(), which is pipe
there, not the pipeline built: it stays in pipeline mode, and says why."""
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline

# dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it (one unit with sized_pipe): line 13: sized_pipe stays in pipeline mode: its graph is built in `with pipe:` and reads Pipeline.current(), which is pipe there, not sized_pipe; line 14: ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
# dali-migrate: DM230 the graph of pipe, which stays in pipeline mode with everything that uses it: line 13: sized_pipe stays in pipeline mode: its graph is built in `with pipe:` and reads Pipeline.current(), which is pipe there, not sized_pipe; line 14: ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
with pipe:
    jpegs, labels = fn.readers.file(file_root="images")
    pipe.set_outputs(fn.decoders.image(jpegs), labels)
pipe.build()

# dali-migrate: DM105 Pipeline is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
# dali-migrate: DM230 sized_pipe stays in pipeline mode with everything that uses it (one unit with pipe): line 13: sized_pipe stays in pipeline mode: its graph is built in `with pipe:` and reads Pipeline.current(), which is pipe there, not sized_pipe; line 14: ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
sized_pipe = Pipeline(batch_size=4, num_threads=1, device_id=None)
# dali-migrate: DM212 sized_pipe stays in pipeline mode: its graph is built in `with pipe:` and reads Pipeline.current(), which is pipe there, not sized_pipe
with pipe:
    # dali-migrate: DM104 ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
    jpegs, _ = fn.readers.file(file_root="images", shard_id=Pipeline.current().batch_size % 2, num_shards=2)
    sized_pipe.set_outputs(fn.decoders.image(jpegs))
sized_pipe.build()
(sized,) = sized_pipe.run()

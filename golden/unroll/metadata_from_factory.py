"""Reader metadata asked of pipelines that reach the code some other way than a local call: returned by a
factory, passed to a helper, kept in a list, given to DALIGenericIterator. The migrated pipeline answers
epoch_size(), reader_meta() and max_batch_size itself (a ReaderStream); the code that asks is unchanged."""
from nvidia.dali import Pipeline, fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def files(root):
    # the reader is named, so its metadata can be asked for
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", pad_last_batch=True)
    # images are decoded on the CPU
    return fn.decoders.image(jpegs), labels


def make(root):
    pipe = files(root)
    pipe.build()
    return pipe


def steps_per_epoch(pipe):
    return -(-pipe.epoch_size("Reader") // pipe.max_batch_size)


def first_shard_info(pipes):
    meta = pipes[0].reader_meta("Reader")
    return meta["number_of_shards"], meta["pad_last_batch"]


def run(root):
    pipe = make(root)
    print(steps_per_epoch(pipe), first_shard_info([pipe]))
    loader = DALIGenericIterator(make(root), ["images", "labels"], reader_name="Reader")
    for batch in loader:
        print(batch[0]["labels"].shape)


def make_with_block(root):
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, name="Listed")
        pipe.set_outputs(fn.decoders.image(jpegs), labels)
    return pipe


def listed_steps(root):
    pipe = make_with_block(root)
    return pipe.epoch_size("Listed") // pipe.max_batch_size

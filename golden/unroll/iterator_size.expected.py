"""What a PyTorch DALI iterator says about its epochs: size, _size and len() before each epoch, for each
last-batch policy, over a reader named with reader_name (padded or not, sharded or not) and with size= given,
over one pipeline or several (one per shard, as one per GPU: each step is a list of one dict per pipeline)."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def labels_pipe(root, pad=False, shard_id=0, num_shards=1, stick=False, *, batch_size):
    reader = ndd.readers.File(file_root=root, pad_last_batch=pad, shard_id=shard_id, num_shards=num_shards,
                                    stick_to_shard=stick, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield (labels,)

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def by_reader(root, batch_size, policy, pad, epochs=3, shard_id=0, num_shards=1, stick=False):
    pipe = labels_pipe(root, pad=pad, shard_id=shard_id, num_shards=num_shards, stick=stick, batch_size=batch_size)
    return _epochs(_over_reader(pipe, policy), epochs)


def _over_reader(pipe, policy):
    if policy == "FILL":
        return EpochIterator(pipe, ["labels"], reader_name="Reader")
    if policy == "DROP":
        return EpochIterator(pipe, ["labels"], reader_name="Reader", last_batch_policy="DROP")
    return EpochIterator(pipe, ["labels"], reader_name="Reader", last_batch_policy="PARTIAL")


def by_length(root, batch_size, policy, epochs=3):
    """len(loader) batches with next() each epoch, then reset(): DROP never reaches its StopIteration, and the
    plugin's reset() reads and drops the batch it would have dropped."""
    pipe = labels_pipe(root, batch_size=batch_size)
    loader = _over_reader(pipe, policy)
    seen = []
    for _ in range(epochs):
        seen.append([next(loader)[0]["labels"].view(-1).tolist() for _ in range(len(loader))])
        loader.reset()
    return seen


def by_size(root, batch_size, policy, size, epochs=3):
    pipe = labels_pipe(root, batch_size=batch_size)
    if policy == "FILL":
        loader = EpochIterator(pipe, ["labels"], size=size)
    elif policy == "DROP":
        loader = EpochIterator(pipe, ["labels"], size=size, last_batch_policy="DROP")
    else:
        loader = EpochIterator(pipe, ["labels"], size=size, last_batch_policy="PARTIAL")
    return _epochs(loader, epochs)


def _epochs(loader, epochs):
    seen = []
    for _ in range(epochs):
        counted = (loader._size, loader.size, len(loader))
        labels = [batch[0]["labels"].view(-1).tolist() for batch in loader]
        loader.reset()
        seen.append((counted, labels))
    return seen


def without_reset(root, batch_size, epochs=3):
    """Each `for` over the loader starts the next epoch: the plugin's __iter__ resets a finished epoch."""
    pipe = labels_pipe(root, batch_size=batch_size)
    loader = EpochIterator(pipe, ["labels"], reader_name="Reader")
    seen = []
    for _ in range(epochs):
        seen.append([batch[0]["labels"].view(-1).tolist() for batch in loader])
    return seen


def by_readers(root, batch_size, policy, pad, num_pipelines, num_shards, stick=False, epochs=5):
    """One pipeline per shard id (the first num_pipelines of num_shards), all in one iterator."""
    pipes = [labels_pipe(root, pad=pad, shard_id=shard_id, num_shards=num_shards, stick=stick, batch_size=batch_size)
             for shard_id in range(num_pipelines)]
    if policy == "FILL":
        loader = EpochIterator(pipes, ["labels"], reader_name="Reader")
    elif policy == "DROP":
        loader = EpochIterator(pipes, ["labels"], reader_name="Reader", last_batch_policy="DROP")
    else:
        loader = EpochIterator(pipes, ["labels"], reader_name="Reader", last_batch_policy="PARTIAL")
    return _all_epochs(loader, epochs)


def by_sizes(root, batch_size, policy, size, num_pipelines, epochs=3):
    pipes = [labels_pipe(root, shard_id=shard_id, num_shards=num_pipelines, batch_size=batch_size)
             for shard_id in range(num_pipelines)]
    if policy == "FILL":
        loader = EpochIterator(pipes, ["labels"], size=size)
    elif policy == "DROP":
        loader = EpochIterator(pipes, ["labels"], size=size, last_batch_policy="DROP")
    else:
        loader = EpochIterator(pipes, ["labels"], size=size, last_batch_policy="PARTIAL")
    return _all_epochs(loader, epochs)


def _all_epochs(loader, epochs):
    """Each epoch's counts and, per step, the labels of every pipeline's batch."""
    seen = []
    for _ in range(epochs):
        counted = (loader._size, loader.size, len(loader))
        steps = [[batch["labels"].view(-1).tolist() for batch in step] for step in loader]
        loader.reset()
        seen.append((counted, steps))
    return seen



POLICIES = {"FILL": "FILL", "DROP": "DROP", "PARTIAL": "PARTIAL"}


def private_loader(root, batch_size, policy, pad, num_pipelines=1, size=-1, first=True):
    """An iterator over one pipeline per shard, with reader_name or (size > 0) with size=; first: whether it
    prepares its first batch when it is made."""
    pipes = [labels_pipe(root, pad=pad, shard_id=shard_id, num_shards=num_pipelines, batch_size=batch_size)
             for shard_id in range(num_pipelines)]
    if size > 0:
        return EpochIterator(pipes, ["labels"], size=size, last_batch_policy=POLICIES[policy], prepare_first_batch=first)
    return EpochIterator(pipes, ["labels"], reader_name="Reader", last_batch_policy=POLICIES[policy], prepare_first_batch=first)



def private_state(look, root, batch_size, policy, pad, num_pipelines=1, size=-1, first=True, epochs=3):
    """What ``look`` (a function of the caller's) sees of the iterator after construction, after each step and after
    each reset(): the test reads the plugin's private state there, which a subclass may read."""
    loader = private_loader(root, batch_size, policy, pad, num_pipelines, size, first)
    seen = [look(loader)]
    for _ in range(epochs):
        for _ in loader:
            seen.append(look(loader))
        loader.reset()
        seen.append(look(loader))
    return seen

"""A PyTorch DALI iterator handed to code the tool does not follow (itertools, a trainer's fit()), pulled with
the old .next() method, and its last-batch policy chosen away from the iterator call: from a module-level
table of members, or a parameter's default."""

import itertools
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)

POLICIES = {"FILL": "FILL", "DROP": "DROP", "PARTIAL": "PARTIAL"}


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def labels_pipe(root, shard_id=0, num_shards=1, *, batch_size):
    reader = ndd.readers.File(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield (labels,)

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def loader_for(root, batch_size, policy):
    pipe = labels_pipe(root, batch_size=batch_size)
    return EpochIterator(pipe, ["labels"], reader_name="Reader", last_batch_policy=POLICIES[policy])


def by_next_method(root, batch_size, policy, epochs=3):
    """len(loader) batches with loader.next() each epoch, then reset()."""
    loader = loader_for(root, batch_size, policy)
    seen = []
    for _ in range(epochs):
        seen.append([loader.next()[0]["labels"].view(-1).tolist() for _ in range(len(loader))])
        loader.reset()
    return seen


def first_batches(root, batch_size, n, policy="DROP"):
    """A library call takes the first n batches of each epoch; the size and pipeline count as the loader says."""
    pipes = [labels_pipe(root, shard_id=k, num_shards=2, batch_size=batch_size) for k in range(2)]
    loader = EpochIterator(pipes, ["labels"], reader_name="Reader", last_batch_policy=policy)
    seen = []
    for _ in range(3):
        taken = [[d["labels"].view(-1).tolist() for d in step] for step in itertools.islice(loader, n)]
        seen.append((loader._num_gpus, loader.size, taken))
        for _ in loader:  # the rest of the epoch
            pass
        loader.reset()
    return seen


def given_policy(root, batch_size, policy):
    """The policy as the caller gives it (the plugin wants a member)."""
    pipe = labels_pipe(root, batch_size=batch_size)
    return EpochIterator(pipe, ["labels"], reader_name="Reader", last_batch_policy=policy)


def deprecated_flag(root, batch_size):
    """fill_last_batch=False decides over the policy named beside it (the plugin warns, and counts PARTIAL)."""
    pipe = labels_pipe(root, batch_size=batch_size)
    loader = EpochIterator(pipe, ["labels"], reader_name="Reader", last_batch_policy="PARTIAL")
    return [[b[0]["labels"].view(-1).tolist() for b in loader] for _ in range(2)]

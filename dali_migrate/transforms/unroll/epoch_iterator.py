"""The class written into a module whose code used DALIGenericIterator / DALIClassificationIterator.

It is plain Python over the migrated pipeline (an iterator that yields one tuple of ndd.Batch per
step, crossing epochs like pipe.run()); it counts samples per epoch the way the plugin does for one
unsharded reader (nvidia/dali/plugin/base_iterator.py), so batches per epoch and their content match.
"""

CLASS_NAME = "EpochIterator"

SOURCE = '''\
class EpochIterator:
    """Epochs of [{name: torch.Tensor}] over a dynamic-mode pipeline, as DALIGenericIterator gave.

    Written by dali-migrate. The plugin's counting for one unsharded reader: FILL yields whole
    batches and, unless the reader pads its last batch, carries the overflow into the next epoch;
    DROP drops the batch that would cross the end of the epoch; PARTIAL cuts it. size (also _size)
    and len() are the plugin's, epoch by epoch; a new loop over it after an epoch ended starts the next.
    """

    def __init__(self, pipelines, output_map, *, batch_size=None, size=-1, reader_name=None, reader_meta=None,
                 last_batch_policy="FILL", last_batch_padded=False, auto_reset=False):
        pipelines = pipelines if isinstance(pipelines, (list, tuple)) else [pipelines]
        if reader_name is not None:  # a migrated pipeline (ReaderStream) answers for its reader
            reader_meta = pipelines[0].reader_meta(reader_name)
            batch_size = pipelines[0].max_batch_size
        self._pipelines = [iter(pipeline) for pipeline in pipelines]
        self._names = list(output_map)
        self.batch_size = batch_size
        self._meta = reader_meta
        if reader_meta is not None:
            size = reader_meta["epoch_size"]
            last_batch_padded = bool(reader_meta["pad_last_batch"])
        self._epoch = size  # samples in one epoch
        self._policy = last_batch_policy
        self._padded = last_batch_padded
        self._auto_reset = auto_reset
        self._seen = 0  # samples counted in this epoch
        self._ended = False
        self._consumed = False
        self._size = self._epoch_end()

    @property
    def size(self):
        return self._size

    def _epoch_end(self):
        """The plugin's size (its _size): the count at which this epoch ends, the epoch size given, or for
        a reader the whole batches this epoch still needs (FILL and PARTIAL), its epoch_size (DROP) or
        its epoch_size_padded (a padded reader)."""
        if self._meta is None or self._policy == "DROP":
            return self._epoch
        if self._padded:
            return self._meta["epoch_size_padded"]
        return -(-(self._epoch - self._seen) // self.batch_size) * self.batch_size

    def __len__(self):
        step = self.batch_size * (1 if self._meta is not None else len(self._pipelines))
        if self._policy == "DROP":
            return self._size // step
        return -(-self._size // step)

    def __iter__(self):
        if self._seen != 0 and self._consumed:  # like the plugin: a new loop over a finished epoch resets it
            self.reset()
        return self

    def __next__(self):
        self._consumed = True
        if self._ended or self._seen >= self._epoch:
            self._end_epoch()
        steps = [next(pipeline) for pipeline in self._pipelines]
        if self._policy == "DROP" and self._seen + self.batch_size > self._epoch:
            self._seen = self._epoch
            self._end_epoch()
        keep = self.batch_size
        if self._policy == "PARTIAL":
            keep = min(self.batch_size, self._epoch - self._seen)
        self._seen += self.batch_size
        return [{name: batch.torch()[:keep] for name, batch in zip(self._names, step)} for step in steps]

    def _end_epoch(self):
        self._ended = True
        if self._auto_reset:
            self.reset()
        raise StopIteration

    def reset(self):
        if self._seen < self._epoch:
            return  # like the plugin: a reset before the end of the epoch is ignored
        carry = 0
        if self._policy == "FILL" and not self._padded:  # the samples read into the next epoch count there
            carry = self._seen - self._epoch if self._meta is not None else self._seen % self._epoch
            if carry >= self._epoch:  # a batch larger than the epoch: the plugin starts the next one afresh
                carry = 0
        self._seen = carry
        self._ended = False
        self._size = self._epoch_end()
'''

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
    DROP drops the batch that would cross the end of the epoch; PARTIAL cuts it.
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
        if reader_meta is not None:
            size = reader_meta["epoch_size"]
            last_batch_padded = bool(reader_meta["pad_last_batch"])
        self.size = size
        self._policy = last_batch_policy
        self._padded = last_batch_padded
        self._auto_reset = auto_reset
        self._seen = 0  # samples counted in this epoch
        self._ended = False
        import nvidia.dali.experimental.dynamic as ndd

        # Outputs become torch tensors in this thread, as the plugin's copies did: handing each one to
        # a background thread costs milliseconds while loading keeps the cores busy.
        self._convert_mode = ndd.EvalMode.sync_cpu

    def __len__(self):
        if self._policy == "DROP":
            return self.size // self.batch_size
        return -(-self.size // self.batch_size)

    def __iter__(self):
        return self

    def __next__(self):
        if self._ended or self._seen >= self.size:
            self._end_epoch()
        steps = [next(pipeline) for pipeline in self._pipelines]
        if self._policy == "DROP" and self._seen + self.batch_size > self.size:
            self._seen = self.size
            self._end_epoch()
        keep = self.batch_size
        if self._policy == "PARTIAL":
            keep = min(self.batch_size, self.size - self._seen)
        self._seen += self.batch_size
        with self._convert_mode:
            return [{name: batch.torch()[:keep] for name, batch in zip(self._names, step)} for step in steps]

    def _end_epoch(self):
        self._ended = True
        if self._auto_reset:
            self.reset()
        raise StopIteration

    def reset(self):
        if self._seen < self.size:
            return  # like the plugin: a reset before the end of the epoch is ignored
        carry = self._seen - self.size if self._policy == "FILL" and not self._padded else 0
        self._seen = carry
        self._ended = False
'''

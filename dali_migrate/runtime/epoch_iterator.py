"""``EpochIterator``: what DALIGenericIterator / DALIClassificationIterator (PyTorch) gave, over migrated pipelines.

The migration's side is ``transforms/unroll/epoch_iterator.py`` (the counting it follows, checked in
docs/dali-facts.md).
"""

from .settle import _settle_at_exit


class EpochIterator:
    """Epochs of [{name: torch.Tensor}, ...] (one dict per pipeline) over dynamic-mode pipelines, as
    DALIGenericIterator gave.

    Written by dali-migrate. It counts as the plugin does: FILL yields whole batches and, unless the
    reader pads its last batch, carries the overflow into the next epoch; DROP drops the batch that
    would cross the end of the epoch; PARTIAL cuts it. With a reader's metadata it follows the
    plugin's per-shard counts (shard sizes, each pipeline moving to the next shard each epoch unless
    stick_to_shard). size (also _size) and len() are the plugin's, epoch by epoch; a new loop over it
    after an epoch ended starts the next one. As the plugin, it reads and counts the first batch when it is
    made (prepare_first_batch) and keeps it in _first_batch until the first next(); its other attributes
    with the plugin's names (_counter, _last_batch_policy, _auto_reset, ...) hold the plugin's values. Without size or reader, an epoch lasts until a pipeline's
    external source ends it, and reset() (or auto_reset) starts the pipelines' next epoch.

    It takes the plugin's arguments, by position too. Given pipelines still in pipeline mode (nvidia.dali
    Pipeline objects, say from a module that was not migrated), it is the plugin's own iterator over them:
    every call and attribute goes to that iterator, so it gives exactly what the plugin gave.
    """

    _plugin = None  # the plugin's iterator, over pipelines still in pipeline mode

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, auto_reset=False, fill_last_batch=None,
                 dynamic_shape=False, last_batch_padded=False, last_batch_policy="FILL", prepare_first_batch=True,
                 *, batch_size=None, reader_meta=None):
        pipelines = pipelines if isinstance(pipelines, (list, tuple)) else [pipelines]
        _settle_at_exit()
        if fill_last_batch is not None:  # the plugin: given, it decides whatever last_batch_policy says
            last_batch_policy = "FILL" if fill_last_batch else "PARTIAL"
        last_batch_policy = getattr(last_batch_policy, "name", last_batch_policy)  # the plugin's enum, or its name
        if last_batch_policy not in ("FILL", "DROP", "PARTIAL"):
            raise ValueError(f"Wrong value for `last_batch_policy`: {last_batch_policy!r}")
        if any(self._pipeline_mode(pipeline) for pipeline in pipelines):  # decided at run time: the plugin's iterator
            import weakref

            options = dict(size=size, reader_name=reader_name, auto_reset=auto_reset, last_batch_padded=last_batch_padded,
                           last_batch_policy=self._policies()[last_batch_policy], prepare_first_batch=prepare_first_batch)
            if dynamic_shape:
                options["dynamic_shape"] = dynamic_shape
            self._plugin = self._plugin_class()(pipelines, output_map, **options)
            this = weakref.ref(self)  # the plugin's own resets (auto_reset, a new loop) go through this object's
            self._plugin.reset = lambda: this().reset()
            for name in [name for name in vars(self) if name != "_plugin" and name in vars(self._plugin)]:
                delattr(self, name)  # what a subclass set before super().__init__ the plugin's constructor overwrote
            return
        if reader_name is not None and reader_meta is None:  # a migrated pipeline (ReaderStream) answers for its reader
            reader_meta = [pipeline.reader_meta(reader_name) for pipeline in pipelines]
        if batch_size is None:  # a ReaderStream knows its batch size
            if not hasattr(pipelines[0], "max_batch_size"):
                raise TypeError(f"{type(self).__name__} takes nvidia.dali Pipelines or migrated pipelines that know "
                                f"their batch size (ReaderStream), not {type(pipelines[0]).__name__}: pass batch_size=")
            batch_size = pipelines[0].max_batch_size
        self._pipelines = [iter(pipeline) for pipeline in pipelines]
        self._ahead = [[] for _ in pipelines]  # steps each pipeline ran ahead at an epoch's end (see reset)
        # The plugin's attributes, with its values (a subclass may read them; docs/dali-facts.md)
        self._num_gpus = len(pipelines)  # the plugin's name for the number of pipelines
        self.output_map = output_map
        self._output_categories = set(output_map)
        self.batch_size = batch_size
        self._last_batch_policy = self._policies()[last_batch_policy]  # the plugin's LastBatchPolicy member
        self._last_batch_padded = last_batch_padded
        if auto_reset is True or auto_reset == "yes":  # the plugin's values ("yes"/"no"), and it refuses others
            self._auto_reset = "yes"
        elif auto_reset is False or auto_reset is None or auto_reset == "no":
            self._auto_reset = "no"
        else:
            raise ValueError(f"Unsupported value for `auto_reset` {auto_reset}")
        self._prepare_first_batch = prepare_first_batch
        self._reader_name = reader_name
        self._enable_checkpointing = False  # (a checkpointed pipeline stays in pipeline mode)
        self._ever_scheduled = False  # the pipelines ran (the plugin's first run is at its first batch)
        import nvidia.dali.experimental.dynamic as ndd

        # Outputs become torch tensors in this thread, as the plugin's copies did: handing each one to
        # a background thread costs milliseconds while loading keeps the cores busy.
        self._convert_mode = ndd.EvalMode.sync_cpu
        self._counter = 0  # samples counted per pipeline (from the smallest shard's start, with a reader)
        self._ever_consumed = False
        metas = reader_meta if isinstance(reader_meta, (list, tuple)) else [reader_meta] * len(pipelines)
        self._meta = metas[0]
        if reader_meta is None:
            self._size = int(size)
            if self._size < 0:  # the plugin: no size and no reader, so FILL until the pipeline ends
                self._last_batch_policy, self._last_batch_padded = self._policies()["FILL"], False
        else:
            self._count_by_reader(metas)
        self._first_batch = None
        if prepare_first_batch:  # the plugin reads (and counts) the first batch here, with its own __next__
            try:
                self._first_batch = self._step()
            except StopIteration:  # the first batch was dropped (DROP), or the pipeline gave none
                raise RuntimeError("It seems that there is no data in the pipeline. This may happen if "
                                   "`last_batch_policy` is set to PARTIAL and the requested batch size is greater "
                                   "than the shard size.") from None

    @classmethod
    def classification(cls, pipelines, size=-1, reader_name=None, auto_reset=False, fill_last_batch=None,
                       dynamic_shape=False, last_batch_padded=False, last_batch_policy="FILL", prepare_first_batch=True,
                       **options):
        """DALIClassificationIterator(...) with its own signature (no output map: it is ["data", "label"])."""
        return cls(pipelines, ["data", "label"], size, reader_name, auto_reset, fill_last_batch, dynamic_shape,
                   last_batch_padded, last_batch_policy, prepare_first_batch, **options)

    @staticmethod
    def _policies():
        import importlib

        return getattr(importlib.import_module("nvidia.dali.plugin.base_iterator"), "LastBatchPolicy")

    def _count_by_reader(self, metas):
        for key in ("epoch_size", "number_of_shards"):  # the plugin asserts the readers agree
            assert all(meta[key] == metas[0][key] for meta in metas), f"Reader Operator should have the same {key}"
        epoch, shards = self._meta["epoch_size"], self._meta["number_of_shards"]
        self._last_batch_padded = self._meta["pad_last_batch"]
        self._is_stick_to_shard = self._meta["stick_to_shard"]
        self._size_no_pad, self._shards_num = epoch, shards
        self._shards = [meta["shard_id"] for meta in metas]  # the shard each pipeline reads this epoch
        self._shard_sizes = [(k + 1) * epoch // shards - k * epoch // shards for k in range(shards)]
        self._initial_sizes = list(self._shard_sizes)
        self._per_shard = [0] * shards  # samples each shard has read ahead into this epoch
        if self._last_batch_policy.name == "DROP":
            self._size = epoch // shards
        elif self._last_batch_padded:
            self._size = self._meta["epoch_size_padded"] // shards
        else:
            self._size = -(-(-(-epoch // shards)) // self.batch_size) * self.batch_size

    @staticmethod
    def _pipeline_mode(pipeline):
        """An nvidia.dali Pipeline (or a subclass of one): known by its class, so nothing of DALI is imported."""
        return any(cls.__name__ == "Pipeline" and cls.__module__ == "nvidia.dali.pipeline" for cls in type(pipeline).__mro__)

    @staticmethod
    def _plugin_class():  # (by its name: the migrated module keeps no import of the plugin)
        import importlib

        return getattr(importlib.import_module("nvidia.dali.plugin.pytorch"), "DALIGenericIterator")

    def __getattr__(self, name):  # over pipeline-mode pipelines: the plugin's attributes (_size, batch_size, _pipes ...)
        if self._plugin is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self._plugin, name)

    def __setattr__(self, name, value):  # over pipeline-mode pipelines: the plugin's state is the plugin's to hold
        if self._plugin is not None and name in vars(self._plugin):
            setattr(self._plugin, name, value)
        else:
            object.__setattr__(self, name, value)

    @property
    def size(self):
        return self._size

    def __len__(self):
        if self._plugin is not None:
            return len(self._plugin)
        step = self.batch_size * (1 if self._meta is not None else len(self._pipelines))
        if self._last_batch_policy.name == "DROP":
            return self._size // step
        return -(-self._size // step)

    def __iter__(self):
        if self._plugin is not None:
            self._plugin.__iter__()
            return self
        if self._counter != 0 and self._ever_consumed:  # like the plugin: a new loop over a finished epoch resets it
            self.reset()
        return self

    def __next__(self):
        if self._plugin is not None:
            return self._plugin.__next__()
        self._ever_consumed = True
        if self._first_batch is not None:  # the batch read at construction comes first, as the plugin's
            batch = self._first_batch
            self._first_batch = None
            return batch
        return self._step()

    def _step(self):
        """One step of the pipelines, counted (the plugin's __next__ past its first batch)."""
        self._ever_scheduled = True
        if self._size > 0 and self._counter >= self._size:
            self._end_epoch()
        try:
            steps = [self._next_step(index) for index in range(len(self._pipelines))]
        except StopIteration:  # an external source ended the epoch: auto_reset starts the next, as the plugin's
            if self._size < 0 and self._auto_reset == "yes":
                self.reset()
            raise
        if self._advance():
            self._end_epoch()
        keep = [None] * len(steps)  # samples kept of each pipeline's batch (None: all)
        if self._meta is not None:
            if self._last_batch_policy.name == "PARTIAL":  # each pipeline keeps what is left of its shard
                left = [self.batch_size - (self._counter - self._initial_sizes[shard]) for shard in self._shards]
                keep = left if any(n < self.batch_size for n in left) else keep
        elif self._last_batch_policy.name == "PARTIAL" and self._size > 0 and self._counter > self._size:
            wanted = len(steps) * self.batch_size - (self._counter - self._size)
            steps = steps[:-(-wanted // self.batch_size)]  # the pipelines that still hold samples of the epoch
            keep[len(steps) - 1] = wanted % self.batch_size or None
        with self._convert_mode:
            return self._convert(steps, keep)

    def _next_step(self, index):
        """The next step of the index-th pipeline: first those it ran ahead (an error raised there, at its turn)."""
        if self._ahead[index]:
            ok, value = self._ahead[index].pop(0)
            if not ok:
                raise value
            return value
        return next(self._pipelines[index])

    def _run_ahead(self):
        """At an epoch's end by size, the plugin has already run each pipeline prefetch_queue_depth steps
        (the stream's _prefetch_depth; 1 with exec_pipelined=False) past the last batch it gave, and so met an
        external source's end where the epoch ends there: reset() then starts the source's next epoch. Steps run
        ahead come first in the next epoch."""
        for ahead, pipeline in zip(self._ahead, self._pipelines):
            if getattr(pipeline, "_restart", None) is None:
                continue  # no source that ends epochs: running ahead would change only when steps are computed
            while len(ahead) < getattr(pipeline, "_prefetch_depth", 2):
                try:
                    ahead.append((True, next(pipeline)))
                except StopIteration:
                    break  # the pipeline's source ended its epoch: its reset() below starts the next
                except Exception as error:  # raised when its step is due, as the plugin's would be
                    ahead.append((False, error))
                    break

    def next(self):
        self._ever_consumed = True  # the plugin's next(): this batch counts as consumed, whoever gives it
        return self.__next__()

    def _convert(self, steps, keep):
        """The plugin's value for one step of each pipeline: [{name: torch.Tensor}], keep[i] samples of the i-th."""
        return [{name: batch.torch()[:n] for name, batch in zip(self.output_map, step)} for step, n in zip(steps, keep)]

    def _advance(self, dry_run=False):
        """Count one batch (the plugin's _advance_and_check_drop_last); True where DROP ends the epoch."""
        if self._meta is not None:
            counter = self._counter + self.batch_size
            end = self._last_batch_policy.name == "DROP" and any(
                read + counter > size for read, size in zip(self._per_shard, self._shard_sizes))
        else:
            counter = self._counter + len(self._pipelines) * self.batch_size
            end = self._last_batch_policy.name == "DROP" and counter > self._size
        if not dry_run:
            self._counter = counter
        return end

    def _end_epoch(self):
        if self._auto_reset == "yes":
            self.reset()
        raise StopIteration

    def reset(self):
        if self._plugin is not None:
            return type(self._plugin).reset(self._plugin)
        if self._last_batch_policy.name == "DROP" and self._advance(dry_run=True) and not (
                self._size > 0 and self._counter >= self._size):
            for index in range(len(self._pipelines)):  # the plugin reads and drops the batch that would not fit
                self._next_step(index)
            self._advance()
        if not (self._counter >= self._size or self._size < 0):
            return  # like the plugin: a reset before the end of the epoch is ignored
        fill = self._last_batch_policy.name == "FILL" and not self._last_batch_padded
        if self._size > 0:
            self._run_ahead()
        for pipeline in self._pipelines:  # a migrated pipeline whose source ended its epoch starts the next one
            if hasattr(pipeline, "reset"):
                pipeline.reset()
        if self._meta is None:
            self._counter = self._counter % self._size if fill and self._size > 0 else 0
            return
        if fill:  # what each shard read ahead into the next epoch counts there
            import numpy

            self._counter -= min(self._per_shard)
            self._per_shard = [read + self._counter - size for read, size in zip(self._per_shard, self._shard_sizes)]
            self._counter = numpy.int64(min(self._per_shard))  # the plugin's min() over a numpy array
        else:
            self._counter = 0
        if not self._is_stick_to_shard:
            self._shards = [(shard + 1) % len(self._shard_sizes) for shard in self._shards]
        if fill:
            if not self._is_stick_to_shard:
                self._shard_sizes = self._shard_sizes[-1:] + self._shard_sizes[:-1]
            ahead = max(size - read for size, read in zip(self._shard_sizes, self._per_shard))
            self._size = int(-(-ahead // self.batch_size) * self.batch_size)  # the plugin's math.ceil: an int
            if self._size == 0:  # the samples read ahead cover the next epoch whole: it starts afresh
                self._per_shard = [0] * len(self._shard_sizes)
                self._counter = 0
                self._shard_sizes = self._shard_sizes[-1:] + self._shard_sizes[:-1]
                self._size = -(-max(self._shard_sizes) // self.batch_size) * self.batch_size

"""Pipelines whose readers' metadata is asked for: the migrated pipeline answers it at run time.

Pipeline mode answers ``pipe.epoch_size(name)``, ``pipe.reader_meta(name)`` and ``pipe.max_batch_size``
from the pipeline object, wherever that object went: returned by a factory, passed to a helper, kept in a
list or an attribute, handed to ``DALIGenericIterator(pipe, reader_name=...)``. A migrated pipeline is a
generator, which has no such methods, and the reader lives inside it.

So a pipeline whose metadata the program asks for is written as a function that creates its reader
once, with ``max_batch_size`` (asking a reader for its metadata before its first batch is then safe in
DALI 2.4.0, ndd-facts §1.4), and returns a ``ReaderStream``: the steps (the generator, prefetched as
any other) together with that reader by its name. ``ReaderStream`` (``SOURCE``, written into the module
like the ``EpochIterator``) is an iterator over the steps with ``epoch_size(name)``,
``reader_meta(name)``, ``max_batch_size`` and ``batch_size``. The code that asks stays as it was, and
works over any path the pipeline takes to it::

    @pipeline_def                                   def eval_pipe(root, *, batch_size, ...):
    def eval_pipe(root):                                reader = ndd.readers.File(file_root=root,
        jpegs, labels = fn.readers.file(                    name="Reader", max_batch_size=batch_size)
            file_root=root, name="Reader")      ->
        return fn.decoders.image(jpegs), labels         @Prefetch(depth=2)
                                                        def steps():
    pipe = make()  # a factory                              while True:
    pipe.epoch_size("Reader")                                   for jpegs, labels in reader.next_epoch(...):
                                                                    yield ndd.decoders.image(jpegs), labels

                                                        return ReaderStream(steps(), {"Reader": reader}, batch_size)

                                                    pipe = make()
                                                    pipe.epoch_size("Reader")

The metadata comes from the reader that is iterated (the one the steps read), so it is the reader's own
answer, not one recomputed from the arguments. Not streamed: pipelines with checkpointing (a checkpoint
must be restored before the reader is first used, and asking for metadata uses it).
"""

from __future__ import annotations

import libcst as cst

from ...dataflow import STREAM_CLASS as CLASS_NAME  # the flow model knows ReaderStream(...) by this name
from .model import code_of, stmt

SOURCE = '''\
class ReaderStream:
    """A migrated pipeline: next() gives one step (a tuple of ndd.Batch) as pipe.run() did, and
    epoch_size(name=None), reader_meta(name=None) and max_batch_size answer as the pipeline did.

    Written by dali-migrate. The readers were created with max_batch_size, so their metadata can be
    asked for before the first step (DALI 2.4.0). A migrated Pipeline subclass derives from it: its
    __init__ sets batch_size and _readers, and its steps() generator (the former define_graph) gives
    the steps from the first next() on. A pipeline fed by an external source that ends an epoch
    (StopIteration) gets restart: after the end, next() raises StopIteration until reset() starts
    the next epoch's steps, as pipe.run() and pipe.reset() did. adapt() gives code migrated alone
    one interface over the pipelines it is handed: migrated ones, or nvidia.dali Pipelines.
    """

    _steps = None
    _readers = {}  # {name: reader}

    _dali_pipeline = None  # the nvidia.dali Pipeline whose run() gives the steps (adapt)
    _restart = None  # steps of the next epoch (its index), for a pipeline whose external source ends an epoch
    _prefetch_depth = 2  # its prefetch_queue_depth: the steps a DALI iterator had run it past an epoch's end
    _epoch = 0
    _ended = False

    def __init__(self, steps, readers, batch_size, restart=None, pipeline=None, prefetch_depth=2):
        self._settle_at_exit()
        self._steps = steps
        self._readers = readers
        self.batch_size = batch_size
        self._restart = restart
        self._dali_pipeline = pipeline
        self._prefetch_depth = prefetch_depth

    @staticmethod
    def _settle_at_exit():
        """At exit, wait for the operations this thread's dynamic mode still runs in its worker: DALI 2.4.0 aborts
        the process ("terminate called without an active exception", exit 134) when it exits while the worker is
        inside DALI, as after the last batch of an epoch nobody read (docs/dali-facts.md). One hook in all."""
        import atexit

        def settle():
            import nvidia.dali.experimental.dynamic as ndd

            context = ndd.EvalContext.current()
            context.evaluate_all()
            worker = getattr(context, "_async_executor", None)  # (DALI 2.4.0's; without it, nothing to wait for)
            thread = getattr(worker, "_thread", None)
            if thread is not None and thread.is_alive():
                worker.shutdown()
                thread.join()

        if not getattr(atexit, "_ndd_workers_settle", False):  # once, for every helper that asks
            atexit._ndd_workers_settle = True
            atexit.register(settle)

    @staticmethod
    def prefetch_depth_of(prefetch_queue_depth=2, exec_pipelined=True):
        """How far a DALI iterator with size= runs a pipeline of these options past the batch it gives: its
        queue's depth (the larger one of separate cpu/gpu queues), 1 when not pipelined."""
        if not exec_pipelined:
            return 1
        if isinstance(prefetch_queue_depth, dict):
            return max(prefetch_queue_depth.values())
        return prefetch_queue_depth

    @property
    def max_batch_size(self):
        return self.batch_size

    def __iter__(self):
        return self

    def __next__(self):
        if self._steps is None:  # a migrated Pipeline subclass: its steps see it through a weak proxy, so
            import weakref  # dropping the object stops them (and their thread) at once, as dropping a generator does

            self._settle_at_exit()
            self._steps = type(self).steps(weakref.proxy(self))
        if self._ended:  # as pipe.run(): the epoch's StopIteration again until reset()
            raise StopIteration
        try:
            return next(self._steps)
        except StopIteration:
            self._ended = self._restart is not None
            raise

    def reset(self):
        """pipe.reset(): after the source ended an epoch, the next epoch's steps start; before that, nothing."""
        if self._dali_pipeline is not None:
            return self._dali_pipeline.reset()
        if self._ended:
            self._ended = False
            self._epoch += 1
            self._steps = self._restart(self._epoch)

    def close(self):
        if self._steps is not None:
            self._steps.close()

    @property
    def device_id(self):
        """Pipeline.device_id: the GPU the steps run on (the current one), None in a CPU-only run."""
        if self._dali_pipeline is not None:
            return self._dali_pipeline.device_id
        if "_device_id" in vars(self):
            return self._device_id
        import nvidia.dali.experimental.dynamic as ndd

        return ndd.Device.current().device_id

    @device_id.setter
    def device_id(self, value):  # a migrated Pipeline subclass may set its own
        self._device_id = value

    @staticmethod
    def adapt(pipelines):
        """Migrated pipelines as they are; each nvidia.dali Pipeline (one, or in a list or tuple) as a ReaderStream
        over its run() outputs, copied into ndd Batches, that asks the Pipeline for its metadata and device_id."""
        if isinstance(pipelines, (list, tuple)):
            return type(pipelines)(ReaderStream.adapt(pipeline) for pipeline in pipelines)
        if not any(cls.__name__ == "Pipeline" and cls.__module__ == "nvidia.dali.pipeline"
                   for cls in type(pipelines).__mro__):
            return pipelines

        def steps(pipeline):
            import nvidia.dali.experimental.dynamic as ndd

            step = pipeline.run  # one step of the Pipeline, as its own iterator's were
            while True:  # a copy: the next step reuses the TensorLists' buffers (ndd.as_batch would share them)
                yield tuple(ndd.batch(output) for output in step())

        return ReaderStream(steps(pipelines), {}, pipelines.max_batch_size, pipeline=pipelines)

    def reader_meta(self, name=None):
        if self._dali_pipeline is not None:
            return self._dali_pipeline.reader_meta(name) if name is not None else self._dali_pipeline.reader_meta()
        if name is None:  # every reader, by name
            return {name: reader.get_metadata() for name, reader in self._readers.items()}
        return self._readers[name].get_metadata()

    def epoch_size(self, name=None):  # with the padding to a multiple of the shards, as Pipeline.epoch_size
        if self._dali_pipeline is not None:
            return self._dali_pipeline.epoch_size(name)
        if name is None:
            return {name: meta["epoch_size_padded"] for name, meta in self.reader_meta().items()}
        return self.reader_meta(name)["epoch_size_padded"]
'''


def _quoted(name: str) -> str:
    return repr(name).replace(chr(39), chr(34))


def wrap(definition_body: list, reader_assignments: list, steps_body: list, decorators: list, readers: list,
         batch_size: str, function_name: str = "steps", epochs: bool = False, conditional=(), sources=(),
         ahead: str = "2") -> list:
    """The statements of a streamed pipeline function: the readers, the steps (a generator function,
    with the decorators the generator would have had), and ``return ReaderStream(...)`` with the readers
    that have a name. ``epochs``: the steps end with their epoch (an external source's StopIteration), so
    they take the epoch's index and the stream restarts them on reset(); ``ahead``: the code of the pipeline's
    prefetch_queue_depth, how far a DALI iterator had run it past an epoch's end (Unroller.run_ahead)."""
    params = cst.Parameters(params=[cst.Param(cst.Name("epoch_idx"), default=cst.Integer("0"), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))]) if epochs \
        else cst.Parameters()
    steps = cst.FunctionDef(name=cst.Name(function_name), params=params,
                            body=cst.IndentedBlock(steps_body), decorators=decorators,
                            leading_lines=[cst.EmptyLine(indent=False)] if definition_body or reader_assignments else [])
    named = ", ".join([f"{_quoted(r.name)}: {r.var}" for r in readers if r.name is not None] + [
        f"**({{{_quoted(r.name)}: {r.var}}} if {code_of(condition)} else {{}})"  # created under that condition
        for r, condition in conditional if r.name is not None]
        # a source helper's stream is a ReaderStream where it has named readers (source_helpers.py)
        + [f'**getattr({var}, "_readers", {{}})' for var in sources])
    restart = f", restart={function_name}" if epochs else ""
    restart += f", prefetch_depth={ahead}" if epochs and ahead != "2" else ""
    result = stmt(f"return {CLASS_NAME}({function_name}(), {{{named}}}, {batch_size}{restart})\n").with_changes(
        leading_lines=[cst.EmptyLine(indent=False)])
    return [*definition_body, *reader_assignments, steps, result]

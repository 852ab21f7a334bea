"""Run-time helpers for the code that dali-migrate moved to DALI dynamic mode (nvidia.dali.experimental.dynamic).

Written by dali-migrate, checked against DALI 2.4.0. The migrated code imports ReaderStream, Prefetch from
here; a later migration that needs another helper adds it. Do not edit: when this file is missing,
`dali-migrate migrate --write` over the project writes it again, and a file here with other content is never
overwritten.

To do without a helper, rewrite the code that uses it by hand:
- ReaderStream: return the steps generator itself where nothing asks the pipeline for epoch_size(),
  reader_meta() or max_batch_size (ask the reader: `reader.get_metadata()`).
- Prefetch: remove the `@Prefetch(depth=N)` decorator: each step is then computed when next() asks for it
  (slower where loading overlapped the caller's work).
"""


def _settle_worker():
    """Wait for the operations this thread's dynamic mode still runs in its worker, and end the worker: DALI 2.4.0
    aborts the process ("terminate called without an active exception", exit 134) when it exits while a worker is
    inside DALI, as after the last batch of an epoch nobody read (docs/dali-facts.md). Each thread that ran
    operators has a worker of its own: the main thread's is settled at exit, a prefetch thread's when it ends."""
    import nvidia.dali.experimental.dynamic as ndd

    context = ndd.EvalContext.current()
    try:
        context.evaluate_all()
    except Exception:
        pass  # an operator failed: reading its output raises that error, where the program reads it
    worker = getattr(context, "_async_executor", None)  # (DALI 2.4.0's; without it, nothing to wait for)
    thread = getattr(worker, "_thread", None)
    if thread is not None and thread.is_alive():
        worker.shutdown()
        thread.join()


def _settle_at_exit():
    """Settle the main thread's worker at exit (`_settle_worker`). One hook in all."""
    import atexit

    if not getattr(atexit, "_ndd_workers_settle", False):  # once, for every helper that asks
        atexit._ndd_workers_settle = True
        atexit.register(_settle_worker)


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
        _settle_at_exit()
        self._steps = steps
        self._readers = readers
        self.batch_size = batch_size
        self._restart = restart
        self._dali_pipeline = pipeline
        self._prefetch_depth = prefetch_depth

    @staticmethod
    def prefetch_depth_of(prefetch_queue_depth=2, exec_pipelined=True):
        """How far a DALI iterator with size= runs a pipeline of these options past the batch it gives: its
        queue's depth (the larger one of separate cpu/gpu queues), 1 when not pipelined."""
        if not exec_pipelined:
            return 1
        if isinstance(prefetch_queue_depth, dict):
            return max(prefetch_queue_depth.values())
        return prefetch_queue_depth

    def _pipeline_options(self, batch_size=None, num_threads=None, device_id=None, seed=None, *tuning, **options):
        """``super().__init__(*args, **kwargs)`` of a migrated Pipeline subclass that forwarded its callers' options:
        the four its steps read, taken as Pipeline.__init__ took them (by position in its order, or by name; None
        where not given, as DALI 2.4.0's defaults). The others only tuned pipeline mode's execution (prefetch queue,
        executor, worker processes) and are dropped; those that would change what the steps compute raise."""
        for name in ("enable_conditionals", "enable_checkpointing", "checkpoint"):
            if options.get(name):
                raise ValueError(f"{type(self).__name__}: Pipeline option {name}={options[name]!r} was forwarded to "
                                 f"a class migrated to dynamic mode, which has no counterpart for it")
        self.batch_size, self.num_threads, self.device_id = batch_size, num_threads, device_id
        self.seed = None if seed == -1 else seed

    @property
    def max_batch_size(self):
        return self.batch_size

    def __iter__(self):
        return self

    def __next__(self):
        if self._steps is None:  # a migrated Pipeline subclass: its steps see it through a weak proxy, so
            import weakref  # dropping the object stops them (and their thread) at once, as dropping a generator does

            _settle_at_exit()
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


class Prefetch:
    """Run a generator in a thread of its own, up to depth - 1 steps ahead of the caller, as pipeline
    mode's prefetch_queue_depth did: the next batch loads while the caller uses this one.

    Written by dali-migrate. Steps come in order, computed as the generator alone computes them (its
    seeds, readers and random ops all live in that thread) and finished before they are handed over;
    errors surface where they would without the thread (next() for one the generator raises, reading
    the output for an operator that failed); close(), dropping the generator, the end of the calling
    thread or the end of the program stops the thread after its current step.
    """

    def __init__(self, depth=2):
        self.ahead = depth - 1

    def __call__(self, steps):
        import atexit
        import functools
        import queue
        import threading

        ahead, current_thread = self.ahead, threading.current_thread
        if ahead < 1:  # depth=1: pipeline mode did not load ahead either
            return steps

        @functools.wraps(steps)
        def prefetched(*args, **kwargs):
            import nvidia.dali.experimental.dynamic as ndd  # here, not at decoration: a module still imports without DALI

            generator, ready, room = steps(*args, **kwargs), queue.SimpleQueue(), threading.Semaphore(ahead)
            caller, device, stopping = current_thread(), ndd.Device.current(), []  # the CUDA device is per thread

            def produce():
                try:
                    with device:
                        while True:
                            while not room.acquire(timeout=0.1):
                                if stopping or not caller.is_alive():  # the program is ending
                                    return
                            if stopping:
                                return
                            step = next(generator)
                            try:  # finish the step's work here: none is left pending when the program ends
                                for value in step if isinstance(step, (tuple, list)) else (step,):
                                    if callable(getattr(value, "evaluate", None)):
                                        value.evaluate()
                            except Exception:
                                pass  # an operator failed: reading that output raises it, as without the thread
                            ready.put((True, step))
                except BaseException as error:  # StopIteration too: the end of the steps
                    ready.put((False, error))
                finally:
                    ready.put((False, None))
                    generator.close()  # in the thread that ran it
                    if stopping or not caller.is_alive():  # dropped, closed or the program ends: so do the streams
                        close_streams()  # it read from its closure, which this thread advanced
                    _settle_worker()  # this thread's own worker: still inside DALI at exit, it aborts the program

            def close_streams():
                """The streams the steps read from their enclosing function (a reader's batches under a condition,
                another module's source helper) are closed in the thread that advanced them: a suspended
                next_epoch holds its EvalContext entered on that thread, and another thread's finalizer could not
                leave it ("cannot release un-acquired lock")."""
                import inspect

                for cell in getattr(steps, "__closure__", None) or ():
                    try:
                        value = cell.cell_contents
                    except ValueError:  # a name not bound yet
                        continue
                    if type(value).__name__ == "ReaderStream":
                        value = value._steps
                    if inspect.isgenerator(value) and inspect.getgeneratorstate(value) == inspect.GEN_SUSPENDED:
                        value.close()

            def stop():  # at the end of the program too: a thread still inside DALI then aborts it (exit 134)
                stopping.append(True)
                room.release()
                thread.join()

            thread = threading.Thread(target=produce, name="dali-migrate prefetch", daemon=caller.daemon)
            thread.start()
            atexit.register(stop)  # a daemon caller (a framework's worker thread) never ends before the program
            try:
                while True:
                    ok, value = ready.get()
                    if ok:
                        room.release()
                        yield value
                    elif value is None or isinstance(value, StopIteration):
                        return
                    else:
                        raise value
            finally:
                atexit.unregister(stop)
                stopping.append(True)
                room.release()
                if current_thread() is caller:  # not from a finalizer in another thread: it may be the one awaited
                    thread.join()

        return prefetched

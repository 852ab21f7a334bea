"""``Prefetch``: a migrated generator loads its next steps in a thread of its own, as prefetch_queue_depth did.

The migration's side is ``transforms/unroll/prefetch.py``.
"""

from .settle import _settle_worker


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

"""Pipeline values kept in lists beside plain values: what comes out of each place is followed.

The first pipeline's function sits in [function, range] pairs: the ranges are plain values, the functions
are called, so it migrates. The second's output sits in a [name, output] pair whose output reaches
print(): that unit stays in pipeline mode, whichever way the pair is taken apart.
"""
import contextlib
import numpy as np
from nvidia.dali import fn, pipeline_def
import nvidia.dali.experimental.dynamic as ndd


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


@Prefetch(depth=2)
def arrays(root, *, batch_size, num_threads=None, device_id=None, seed=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.Numpy(file_root=root, name="Reader")
        while True:
            for (data,) in reader.next_epoch(batch_size=batch_size):
                yield (data,)


# dali-migrate: DM230 more_arrays stays in pipeline mode with everything that uses it: line 32: batch (a pipeline output (TensorList)) is passed to print(), whose result differs once it is a dynamic-mode value; line 34: item (a value that may be a pipeline's) is passed to print(), whose result differs once it is a dynamic-mode value
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def more_arrays(root):
    data = fn.readers.numpy(file_root=root)
    return data


for make, (low, high) in [[arrays, (0, 9)], [arrays, (10, 19)]]:
    pipe = make("data", batch_size=2, num_threads=1, device_id=0)
    (out,) = next(pipe)
    print(make.__name__, low, high, np.array(ndd.as_tensor(out)).min() >= low)

other = more_arrays("data")
(found,) = other.run()
named = ["arrays", found]
title, batch = named
print(title)
# dali-migrate: DM231 batch (a pipeline output (TensorList)) is passed to print(), whose result differs once it is a dynamic-mode value
print(batch)
for item in named:
    # dali-migrate: DM231 item (a value that may be a pipeline's) is passed to print(), whose result differs once it is a dynamic-mode value
    print(item)


# dali-migrate: DM230 inspected stays in pipeline mode with everything that uses it: line 44: inspected._is_pipeline_def: the migrated function has no `._is_pipeline_def` as the @pipeline_def function had
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def inspected(root):
    data = fn.readers.numpy(file_root=root)
    return data


print(inspected.__name__, inspected.__qualname__, inspected.__module__)
# dali-migrate: DM231 inspected._is_pipeline_def: the migrated function has no `._is_pipeline_def` as the @pipeline_def function had
print(inspected._is_pipeline_def)  # pipeline_def's own attribute: kept, marked


# dali-migrate: DM230 shown stays in pipeline mode with everything that uses it: line 57: (shown, maybe) (a container holding a pipeline's values) is passed to print(), whose result differs once it is a dynamic-mode value
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def shown(root):
    data = fn.readers.numpy(file_root=root)
    return data


shown_pipe = shown("data")
shown_pipe.build()
(first,) = shown_pipe.run()
maybe = first if title else 3  # an output or a number
# dali-migrate: DM231 (shown, maybe) (a container holding a pipeline's values) is passed to print(), whose result differs once it is a dynamic-mode value
print((shown, maybe))  # a tuple holding what may be an output reaches print(): marked

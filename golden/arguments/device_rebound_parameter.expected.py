"""A device parameter rebound to the decoder's device (as segmentation data generators write it):
``device = 'mixed' if 'gpu' in device.lower() else 'cpu'``. Every later read of the variable is an operator's
device or a test that answers the same for "mixed" and "gpu" ('cpu' in device, device != 'cpu'), so the
assignment's "mixed" is spelled "gpu"; the condition reads the parameter, which keeps its value. A read that
could tell "mixed" from "gpu" keeps the variable as it is and the call marked."""

import contextlib
import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
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
def masks_pipe(files, device="gpu", shard_id=0, num_shards=1, *, batch_size=2):
    device = 'gpu' if 'gpu' in device.lower() else 'cpu'
    shard_id = 1 if 'cpu' in device else shard_id
    reader = ndd.readers.File(files=files, shard_id=shard_id, num_shards=num_shards)
    while True:
        for pngs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(pngs, device=device, output_type=types.RGB)
            masks = ndd.decoders.image(pngs, device=device, output_type=types.GRAY)
            if device != 'cpu':
                labels = labels.gpu()
            yield images, masks, labels


def make_generator(files, batch_size, device):
    """A TF2-style data generator: the pipeline function is nested, its device a parameter of its own."""

    @Prefetch(depth=2)
    def nested_pipe(device, *, batch_size=batch_size, num_threads=1, device_id=None, seed=None):
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            if num_threads is not None and num_threads > ndd.get_num_threads():
                ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            device = "gpu" if "gpu" in device.lower() else "cpu"
            reader = ndd.readers.File(files=files)
            while True:
                for pngs, labels in reader.next_epoch(batch_size=batch_size):
                    yield ndd.decoders.image(pngs, device=device), labels

    return nested_pipe(device)


# dali-migrate: DM230 compared_with_mixed stays in pipeline mode with everything that uses it (one unit with printed): line 41: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device; line 49: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
@pipeline_def(batch_size=2, num_threads=1)
def compared_with_mixed(files, device="gpu"):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    pngs, labels = fn.readers.file(files=files)
    scale = 2 if device == 'mixed' else 1  # tells "mixed" from "gpu": the variable stays
    # dali-migrate: DM115 device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
    return fn.decoders.image(pngs, device=device) * scale, labels


# dali-migrate: DM230 printed stays in pipeline mode with everything that uses it (one unit with compared_with_mixed): line 41: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device; line 49: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
@pipeline_def(batch_size=2, num_threads=1)
def printed(files, device="gpu"):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    print("decoding on", device)  # printed: the variable stays
    pngs, labels = fn.readers.file(files=files)
    # dali-migrate: DM115 device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
    return fn.decoders.image(pngs, device=device), labels


def run(files):
    pipe = masks_pipe(files, device="cpu", num_shards=2)
    print(np.array(ndd.as_tensor(next(pipe)[2])).ravel().tolist())
    generated = make_generator(files, 2, "cpu")
    print(np.array(ndd.as_tensor(next(generated)[1])).ravel().tolist())
    for kept in (compared_with_mixed(files, device="cpu"), printed(files, device="cpu")):
        kept.build()
        print(kept.run()[1].as_array().ravel().tolist())

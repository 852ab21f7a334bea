"""Legacy ops objects made outside the pipeline's definition and called in it: in a plain augmentation class's
__init__, at module level, in a list and a dict, returned by a factory. Each becomes a callable of its ndd op that
keeps its constructor's arguments; an input-less random one gets batch_size= where it is called (the steps' batch
size, or the batch size of the helper's data)."""

from nvidia.dali import types
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


resize = lambda *inputs, **kwargs: ndd.resize(*inputs, resize_x=64, resize_y=64, **kwargs)
shifts = [lambda *inputs, **kwargs: ndd.flip(*inputs, horizontal=1, **kwargs), lambda *inputs, **kwargs: ndd.flip(*inputs, vertical=1, **kwargs)]
casts = {"float": lambda *inputs, **kwargs: ndd.cast(*inputs, dtype=types.FLOAT, **kwargs), "half": lambda *inputs, **kwargs: ndd.cast(*inputs, dtype=types.FLOAT16, **kwargs)}
jitter = lambda *inputs, **kwargs: ndd.random.uniform(*inputs, range=(0.9, 1.1), **kwargs)


def rotation(angle):
    return lambda *inputs, **kwargs: ndd.rotate(*inputs, angle=angle, keep_size=True, **kwargs)


class Augment:
    def __init__(self, probability):
        self.coin = lambda *inputs, **kwargs: ndd.random.coin_flip(*inputs, probability=probability, **kwargs)
        self.flip = lambda *inputs, **kwargs: ndd.flip(*inputs, **kwargs)
        self.turn = rotation(90)

    def __call__(self, images):
        return self.turn(self.flip(images, horizontal=self.coin(batch_size=images.batch_size)))


augment = Augment(0.5)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def train(root, *, batch_size=8, seed=3):
    ndd.random.set_seed(seed)
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = resize(ndd.decoders.image(jpegs))
            for shift in shifts:
                images = shift(images)
            scale = jitter(batch_size=batch_size)
            yield casts["float"](augment(images)) * scale, labels

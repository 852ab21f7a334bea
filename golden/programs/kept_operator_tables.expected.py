"""A test module whose pipelines stay in pipeline mode (their outputs reach check_batch, which the tool cannot
follow): the operators they get as values stay as they were. A table of lambdas over nvidia.dali.math reaches a
Pipeline subclass through nose's `yield check, ...`; an operator reaches a @pipeline_def through its parameter; an
input-less random op is built outside `with pipe:` for set_outputs. The last pipeline migrates, and so do the
operators only it gets."""

import nvidia.dali.fn as fn
import nvidia.dali.math as dmath
import nvidia.dali.ops as ops
import numpy as np
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.experimental.dynamic as ndd
from test_utils import check_batch


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


MATH_OPS = [
    (lambda x: dmath.sqrt(x), np.sqrt, "sqrt"),
    (lambda x: dmath.exp(x), np.exp, "exp"),
]


# dali-migrate: DM230 UnaryPipeline stays in pipeline mode with everything that uses it: line 38: out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
class UnaryPipeline(Pipeline):
    def __init__(self, op, batch_size):
        super().__init__(batch_size, 2, None, seed=12)
        self.op = op
        self.source = ops.ExternalSource()

    def define_graph(self):
        self.data = self.source()
        return self.data, self.op(self.data)

    def iter_setup(self):
        self.feed_input(self.data, [np.ones((2, 2), np.float32)] * self.batch_size)


def check_unary(op, np_op, name):
    pipe = UnaryPipeline(op, 2)
    data, out = pipe.run()
    # dali-migrate: DM231 out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    check_batch(out, [np_op(np.array(data.at(i))) for i in range(2)])


def test_unary():
    for op, np_op, name in MATH_OPS:
        yield check_unary, op, np_op, name


# dali-migrate: DM230 operator_pipe stays in pipeline mode with everything that uses it: line 54: out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
@pipeline_def(batch_size=2, num_threads=2, device_id=None)
def operator_pipe(fn_operator):
    return fn_operator(fn.random.uniform(range=[0, 1], shape=[4]))


def run_operator_test(fn_operator):
    pipe = operator_pipe(fn_operator)
    (out,) = pipe.run()
    # dali-migrate: DM231 out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    check_batch(out, out)


def test_sum():
    run_operator_test(fn_operator=fn.reductions.sum)


def test_permutation():
    # dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 66: indices (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    pipe = Pipeline(batch_size=4, num_threads=1, device_id=None)
    perm = fn.batch_permutation()
    pipe.set_outputs(perm)
    (indices,) = pipe.run()
    # dali-migrate: DM231 indices (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    check_batch(indices, indices)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def scaled_pipe(reduce, *, batch_size=2):
    while True:
        yield (reduce(ndd.random.uniform(range=[0, 1], shape=[4], batch_size=batch_size)) * 2.0,)


def test_scaled():
    pipe = scaled_pipe(ndd.reductions.max)
    (out,) = next(pipe)
    return out

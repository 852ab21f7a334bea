"""Ending dynamic-mode work before the program ends, for every helper that runs it in the background (EpochIterator,
ReaderStream, Prefetch)."""


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

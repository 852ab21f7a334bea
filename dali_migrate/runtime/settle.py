"""One exit hook for every helper that runs dynamic-mode work in the background (EpochIterator, ReaderStream)."""


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

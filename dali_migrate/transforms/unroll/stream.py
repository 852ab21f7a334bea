"""Pipelines whose readers' metadata is asked for: the migrated pipeline answers it at run time.

Pipeline mode answers ``pipe.epoch_size(name)``, ``pipe.reader_meta(name)`` and ``pipe.max_batch_size``
from the pipeline object, wherever that object went: returned by a factory, passed to a helper, kept in a
list or an attribute, handed to ``DALIGenericIterator(pipe, reader_name=...)``. A migrated pipeline is a
generator, which has no such methods, and the reader lives inside it.

So a pipeline whose metadata the program asks for is written as a function that creates its reader
once, with ``max_batch_size`` (asking a reader for its metadata before its first batch is then safe in
DALI 2.4.0, ndd-facts §1.4), and returns a ``ReaderStream``: the steps (the generator, prefetched as
any other) together with that reader by its name. ``ReaderStream`` (``dali_migrate/runtime/reader_stream.py``, imported
from the project's helper module like the ``EpochIterator``) is an iterator over the steps with ``epoch_size(name)``,
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

from .helper_classes import READER_STREAM as CLASS_NAME
from .model import code_of, stmt



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

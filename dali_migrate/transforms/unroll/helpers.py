"""The project's helper module: the run-time helpers (``EpochIterator``, ``ReaderStream``, ``Prefetch``, ...) that
migrated code imports, copied from their real code in ``dali_migrate/runtime``.

A migrated module never holds a helper: it imports the ones it uses from one module the run writes
(``dali_dynamic_compat.py`` by default, ``helper_module = "..."`` in ``[tool.dali-migrate]``)::

    from dali_dynamic_compat import EpochIterator, Prefetch  # written by dali-migrate (migrate --write recreates it)

The module goes to the import root of the run's modules, the folder Python puts on ``sys.path`` for them: the
first folder above a module without an ``__init__.py`` (a notebook's own folder); one module per run, at the top
of those roots where the modules of a deeper root already import the top's own modules (``api._Helpers``). A
dotted ``helper_module`` (``"mypkg.dali_compat"``) puts the file inside a package of that root instead.

The module holds only the helpers the migrated code imports (``module_text(names)``), each with the definitions
it needs (``_settle_at_exit``, ``JaxEpochIterator``'s base), copied from ``dali_migrate/runtime`` as they are
there; a later run that needs another one adds it. Its header names the helpers, the DALI version they were
checked against and how to drop each one by hand. It is not migrated (its text is recognised: ``helper_names``),
and a file of that name with other content (a user's, or one edited since) is never overwritten: the run
reports it as an error (exit 2) and writes the helpers into the modules that need them instead. The exception is
the text an earlier release wrote, unedited (``EARLIER_TEXTS``): it is ours, and the run brings it up to date.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from pathlib import Path

from ... import runtime
from . import epoch_iterator, frameworks, prefetch, stream

DEFAULT_MODULE = "dali_dynamic_compat"
# The modules of dali_migrate/runtime, in the order the helper module holds their definitions.
RUNTIME_MODULES = ("settle", "epoch_iterator", "reader_stream", "prefetch", "jax_iterator", "tf_dataset", "tf_iterator")
# Each helper migrated code may import, and how to do without it (the helper module's header says so).
DROP = {
    epoch_iterator.CLASS_NAME: "iterate the reader's epochs (`for jpegs, labels in reader.next_epoch(): ...`) and "
                               "call `.torch()` on each output, where the plugin's sizes, last-batch policies and "
                               "reset() are not needed",
    stream.CLASS_NAME: "return the steps generator itself where nothing asks the pipeline for epoch_size(), "
                       "reader_meta() or max_batch_size (ask the reader: `reader.get_metadata()`)",
    prefetch.CLASS_NAME: "remove the `@Prefetch(depth=N)` decorator: each step is then computed when next() asks "
                         "for it (slower where loading overlapped the caller's work)",
    frameworks.JAX_NAME: "iterate the generator and convert each output with "
                         "`jax.dlpack.from_dlpack(ndd.as_tensor(batch))`",
    frameworks.TF_NAME: "build `tf.data.Dataset.from_generator` over the generator, each output converted with "
                        "`np.asarray(ndd.as_tensor(batch).cpu())`",
    frameworks.TF_OP_NAME: "call `next()` on the generator and convert each output with "
                           "`tf.convert_to_tensor(np.asarray(ndd.as_tensor(batch).cpu()))`",
}
CHECKED_WITH_DALI = "2.4.0"  # the DALI the helpers were verified against (a test compares the installed one)
IMPORT_COMMENT = "# written by dali-migrate (migrate --write recreates it)"
# SHA-256 of the helper module's text as earlier versions wrote it (02be916, 319ce51, 1bfbf50, 4783b55, 9a0381b,
# 15a7202, f2d8685, aa9755d, 4a10cdd, 1d1e15f, 6a1c1ae, 9e063bd, 060d30d, 5a078ad, 38da6e6: every helper, whatever
# the project used): a file with one of these texts is ours and unedited, so a run replaces it with today's
# definitions of the helpers it held instead of treating it as a user's file.
EARLIER_TEXTS = frozenset({"e34f9ba3720fa8b1a789967f7dd79f28123cfe779c9f592d6e5025e459014f54",
                           "894fc59d8d8831186fcc45b95a0f918cb8e76f483af7be88e71857897860b66a",
                           "560c90d3a5838f7162f3c8fbe342f77c23060e6fa0e95211788228b781d69b20",
                           "05ca2b939f2f420044fba862f47fd62165e8079d4225b643c02a9aeb387d8661",
                           "e0474ddfdc730c5f40182de47cdee72f3b9bc0125daa8b9ee0cf4ccf5b5ae236",
                           "3925467c64bcc936af36d9edc1f05257ca7eeaa31470a75d7cd017d44a837a7b",
                           "1edcb308c8fb58ce8df4b7e4af9b03a26d412c8b097595045822dd54ad884553",
                           "4a90160c60f2a4cfdf4bd0f0f77bf41a05e1e8838b0e45aef8700951a7ced3f1",
                           "a5c8bff986d9c462efa2662c1fef2c5b3a9b559a8b4c5c589a807a17cc088ae6",
                           "09136836a74ea0bf2c5d37bb8139164a5e95cc7afbfcc84c511d2438e8375d7b",
                           "96f306daecbc1a06ad0996e783c0351315c0833e6757214d1daf8593d24f1d52",
                           "40bb18d558cb7ee182e655f1ee53a867409483686c3fe1d1b3503638650609a0",
                           "d674ee8811a73b1783542ebcdcd9706cf6037509297299c25d47a9c3a337cbcc",
                           "1e38a4799ce70268d4ca186b04a3cf62dcf38e78a90d2d19ff03edb39e6f81c8",
                           "784a01b47cf4d5169fac0975fd064e8cb849869194a4de222a61992e6cbb7009",
                           "b93613f708ff982631921f669de3d5b79d1fe17bb13e3ccb99d5950daf8f3da6"})
# SHA-256 of today's text with every helper. A test fails when a definition changes and this does not: then add
# the hashes of every text the old definitions made (``text_hashes()`` before the change) to EARLIER_TEXTS, so
# projects migrated with them are updated, not refused, and put the new one here.
TEXT_SHA256 = "605b093b76277860280fa1321b789fa23d43bff4345c099fb20a1fafbb1873de"

# The first line of every release's helper module: only a file that begins with it is hashed (helper_names).
_FIRST_LINE = '"""Run-time helpers for the code that dali-migrate moved to DALI dynamic mode (nvidia.dali.experimental.dynamic).\n'


@functools.lru_cache(maxsize=None)
def _definitions() -> dict[str, tuple[str, frozenset]]:
    """Every top-level definition of ``dali_migrate/runtime``, in the helper module's order: name -> (its source
    text, decorators included, as the file has it; the names of other definitions it uses)."""
    folder = Path(runtime.__file__).parent
    found: dict[str, tuple[str, set]] = {}
    for module in RUNTIME_MODULES:
        text = (folder / f"{module}.py").read_text()
        lines = text.splitlines(keepends=True)
        for node in ast.parse(text).body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                found[node.name] = ("".join(lines[first - 1:node.end_lineno]), used)
    return {name: (source, frozenset(used & set(found) - {name})) for name, (source, used) in found.items()}


def helper_names() -> tuple[str, ...]:
    """The helpers migrated code may import (``DROP``'s keys), in the helper module's order."""
    return tuple(name for name in _definitions() if name in DROP)


def class_source(name: str) -> str:
    """The source of the helper ``name`` as ``dali_migrate/runtime`` defines it (without what it needs)."""
    return _definitions()[name][0]


def needed(names) -> list[str]:
    """``names`` and every definition they need, in the helper module's order."""
    wanted, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo += _definitions()[name][1]
    return [name for name in _definitions() if name in wanted]


@functools.lru_cache(maxsize=None)
def class_attributes(name: str) -> frozenset:
    """What the helper class ``name`` defines (methods, properties, class attributes): a migrated class that
    derives from it, importing it from the helper module, has these."""
    tree = ast.parse(class_source(name))
    found = set()
    for node in tree.body[0].body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        elif isinstance(node, ast.Assign):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(found)


def _header(names: list[str]) -> str:
    import textwrap

    about = textwrap.fill(
        f"Written by dali-migrate, checked against DALI {CHECKED_WITH_DALI}. The migrated code imports "
        f"{', '.join(names)} from here; a later migration that needs another helper adds it. Do not edit: when this "
        f"file is missing, `dali-migrate migrate --write` over the project writes it again, and a file here with "
        f"other content is never overwritten.", 110, break_on_hyphens=False)
    ways = "".join(textwrap.fill(f"- {name}: {DROP[name]}.", 110, subsequent_indent="  ", break_on_hyphens=False)
                   + "\n" for name in names)
    return f'{_FIRST_LINE}\n{about}\n\nTo do without a helper, rewrite the code that uses it by hand:\n{ways}"""\n'


def module_text(names=None) -> str:
    """The helper module's text: the header, then the helpers ``names`` (default: all) with what they need (a
    helper one needs, JaxEpochIterator's base, is named in the header too: it is there to import)."""
    held = needed(helper_names() if names is None else names)
    return _header([name for name in held if name in DROP]) + "".join("\n\n" + class_source(name) for name in held)


def text_hashes() -> frozenset:
    """SHA-256 of every text today's ``module_text`` can write (one per set of helpers): the values to add to
    ``EARLIER_TEXTS`` before a definition changes."""
    import itertools

    names = helper_names()
    return frozenset(hashlib.sha256(module_text(chosen).encode()).hexdigest()
                     for size in range(1, len(names) + 1) for chosen in itertools.combinations(names, size))


def held_names(data: bytes) -> frozenset | None:
    """The helpers a helper module holds, when today's release wrote it as it is (``module_text`` of them); else None."""
    if not data.startswith(_FIRST_LINE.encode()):
        return None
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    names = frozenset(n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name in DROP)
    return names if names and data == module_text(names).encode() else None


def earlier_names(data: bytes) -> frozenset | None:
    """The helpers of a helper module an earlier release wrote, unedited (``EARLIER_TEXTS``); else None."""
    if not data.startswith(_FIRST_LINE.encode()) or hashlib.sha256(data).hexdigest() not in EARLIER_TEXTS:
        return None
    tree = ast.parse(data)
    return frozenset(n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name in DROP)


def is_helper_module(data: bytes) -> bool:
    """The helper module as this release or an earlier one wrote it, unedited: ours, not user code."""
    return held_names(data) is not None or earlier_names(data) is not None


def is_helper_import(statement) -> bool:
    """``statement`` (a libcst statement) is the import of this module's classes that a migration wrote."""
    comment = getattr(getattr(statement, "trailing_whitespace", None), "comment", None)
    return comment is not None and comment.value == IMPORT_COMMENT


TOOL_WRITTEN_MARK = "Written by dali-migrate."


def is_tool_written_class(node) -> bool:
    """``node`` (a libcst ClassDef) is a class a migration wrote (EpochIterator, ReaderStream, Prefetch, ...):
    its docstring says so. Those classes take pipelines of either kind and ask at run time what they hold."""
    return TOOL_WRITTEN_MARK in (node.get_docstring() or "")


def import_line(module: str, names) -> str:
    return f"from {module} import {', '.join(sorted(names))}  {IMPORT_COMMENT}\n"


def import_root(path) -> Path:
    """The folder on ``sys.path`` through which the module at ``path`` is imported: the first folder above
    it without an ``__init__.py``; for a notebook its own folder (Jupyter runs it there, with that folder
    on ``sys.path``)."""
    folder = Path(path).resolve().parent
    if Path(path).suffix == ".ipynb":
        return folder
    while (folder / "__init__.py").exists():
        folder = folder.parent
    return folder


def module_path(root: Path, module: str) -> Path:
    """Where the helper module ``module`` (dotted, relative to ``root``) lives."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def valid_name(module: str) -> bool:
    return all(part.isidentifier() for part in module.split("."))


def imported_names(text: str, module: str) -> list[tuple[int, list[str]]]:
    """Each import of helpers that a migration wrote in ``text`` (a notebook's JSON too): its 1-based line and
    the names it imports."""
    pattern = re.compile(rf"(?<![\w.])from\s+{re.escape(module)}\s+import\s+([\w, ]+?)  {re.escape(IMPORT_COMMENT)}")
    return [(text.count("\n", 0, m.start()) + 1, [n.strip() for n in m.group(1).split(",")])
            for m in pattern.finditer(text)]


def importers(text: str, module: str) -> list[int]:
    """1-based lines of ``text`` that import from the helper module (a notebook's JSON counts its lines)."""
    pattern = re.compile(rf"(?<![\w.])from\s+{re.escape(module)}\s+import\b")
    return [text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)]

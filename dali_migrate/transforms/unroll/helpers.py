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
from .helper_classes import (EPOCH_ITERATOR, JAX_ITERATOR, PREFETCH, READER_STREAM, SAMPLE_SPLIT, TF_DATASET,
                             TF_ITERATOR)

DEFAULT_MODULE = "dali_dynamic_compat"
# The modules of dali_migrate/runtime, in the order the helper module holds their definitions.
RUNTIME_MODULES = ("settle", "epoch_iterator", "reader_stream", "prefetch", "jax_iterator", "tf_dataset", "tf_iterator",
                   "sample_split")
# Each helper migrated code may import, and how to do without it (the helper module's header says so).
DROP = {
    EPOCH_ITERATOR: "iterate the reader's epochs (`for jpegs, labels in reader.next_epoch(): ...`) and "
                    "call `.torch()` on each output, where the plugin's sizes, last-batch policies and "
                    "reset() are not needed",
    READER_STREAM: "return the steps generator itself where nothing asks the pipeline for epoch_size(), "
                   "reader_meta() or max_batch_size (ask the reader: `reader.get_metadata()`)",
    PREFETCH: "remove the `@Prefetch(depth=N)` decorator: each step is then computed when next() asks "
              "for it (slower where loading overlapped the caller's work)",
    JAX_ITERATOR: "iterate the generator and convert each output with "
                  "`jax.dlpack.from_dlpack(ndd.as_tensor(batch))`",
    TF_DATASET: "build `tf.data.Dataset.from_generator` over the generator, each output converted with "
                "`np.asarray(ndd.as_tensor(batch).cpu())`",
    TF_ITERATOR: "call `next()` on the generator and convert each output with "
                 "`tf.convert_to_tensor(np.asarray(ndd.as_tensor(batch).cpu()))`",
    SAMPLE_SPLIT: "take the samples of each branch with `ndd.as_batch([batch.select(i) for i in indices])`, the "
                  "indices those where `sample.item()` of the condition is true (or not), and put the branches' "
                  "values back with `ndd.as_batch` in sample order",
}
CHECKED_WITH_DALI = "2.4.0"  # the DALI the helpers were verified against (a test compares the installed one)
IMPORT_COMMENT = "# written by dali-migrate (migrate --write recreates it)"
# SHA-256 of the helper module's text as earlier releases wrote it (data/helper_text_hashes.txt): a file with one of
# these texts is ours and unedited, so a run replaces it with today's definitions of the helpers it held instead of
# treating it as a user's file.
EARLIER_TEXTS = frozenset(
    line for line in (Path(__file__).parents[2] / "data" / "helper_text_hashes.txt").read_text().split("\n")
    if line and not line.startswith("#"))
# SHA-256 of today's text with every helper. A test fails when a definition changes and this does not: then append
# the hashes of every text the old definitions made (``text_hashes()`` before the change) to
# data/helper_text_hashes.txt, so projects migrated with them are updated, not refused, and put the new one here.
TEXT_SHA256 = "282650f26cb091ff165e0e232521d6857ea968bdaaa0aee984bcacecc0c17844"

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

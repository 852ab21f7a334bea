"""The run-time helpers the migration writes (``EpochIterator``, ``ReaderStream``, ``Prefetch``), and the one module that holds
them for a project.

A module that needs a helper gets it inline (the class written into the module, after its imports) when it is
the only one of its run that needs one: a single file stays self-contained. When two or more modules under
the same import root need helpers, or when that root already holds the helper module written by an earlier
run, the classes live once in a helper module beside the code (``dali_dynamic_compat.py`` by default,
``helper_module = "..."`` in ``[tool.dali-migrate]``) and each module imports what it uses::

    from dali_dynamic_compat import EpochIterator, Prefetch  # written by dali-migrate (migrate --write recreates it)

The import root is the folder Python puts on ``sys.path`` for the module: the first folder above it without
an ``__init__.py`` (where ``project.module_name_of`` starts the module's dotted name). A script, a notebook
and every package module under that folder resolve ``dali_dynamic_compat`` from there, the same way they
resolve their own packages, so one absolute import serves them all; a relative import would fail for a
script run as ``python pkg/mod.py`` and in notebooks. A dotted ``helper_module`` (``"mypkg.dali_compat"``)
puts the file inside a package of that root instead (for a package that ships as a wheel).

The module's text is fixed (``module_text()``): every helper class, whatever the run needed, so a later run that
needs the other one finds it there and the file never has to be rewritten. It is not migrated (its text is
recognised), and a file of that name with other content (a user's, or one edited since) is never
overwritten: the run reports it as an error (exit 2) and keeps the helpers inline. The exception is the text an
earlier release wrote, unedited (``EARLIER_TEXTS``): it is ours, and the run brings it up to date.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from . import epoch_iterator, frameworks, prefetch, stream

DEFAULT_MODULE = "dali_dynamic_compat"
# Name -> class source, in the order the helper module holds them.
CLASSES = {epoch_iterator.CLASS_NAME: epoch_iterator.SOURCE, stream.CLASS_NAME: stream.SOURCE,
           prefetch.CLASS_NAME: prefetch.SOURCE, frameworks.JAX_NAME: frameworks.JAX_SOURCE,
           frameworks.TF_NAME: frameworks.TF_SOURCE, frameworks.TF_OP_NAME: frameworks.TF_OP_SOURCE}
IMPORT_COMMENT = "# written by dali-migrate (migrate --write recreates it)"
# SHA-256 of the helper module's text as earlier versions wrote it (02be916, 319ce51, 1bfbf50, 4783b55, 9a0381b,
# 15a7202, f2d8685, aa9755d, 4a10cdd, 1d1e15f, 6a1c1ae, 9e063bd, 060d30d, 5a078ad): a file with one of these texts is ours and unedited,
# so a run replaces it with today's classes instead of treating it as a user's file.
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
                           "784a01b47cf4d5169fac0975fd064e8cb849869194a4de222a61992e6cbb7009"})
# SHA-256 of today's text. A test fails when the classes change and this does not: then add the old value to
# EARLIER_TEXTS (so projects migrated with it are updated, not refused) and put the new one here.
TEXT_SHA256 = "b93613f708ff982631921f669de3d5b79d1fe17bb13e3ccb99d5950daf8f3da6"

# The first line of every release's helper module: only a file that begins with it is hashed (is_helper_module).
_FIRST_LINE = '"""Run-time helpers for the code that dali-migrate moved to DALI dynamic mode (nvidia.dali.experimental.dynamic).\n'
_HEADER = _FIRST_LINE + '''
Written by dali-migrate; the migrated modules import these classes from here. Do not edit: when this file
is missing, `dali-migrate migrate --write` over the project writes it again, and a file here with other
content is never overwritten.
"""
'''


@functools.lru_cache(maxsize=None)
@functools.lru_cache(maxsize=None)
def class_attributes(name: str) -> frozenset:
    """What the helper class ``name`` defines (methods, properties, class attributes): a migrated class that
    derives from it, importing it from the helper module, has these."""
    import ast

    tree = ast.parse(CLASSES[name])
    found = set()
    for node in tree.body[0].body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        elif isinstance(node, ast.Assign):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(found)


def module_text() -> str:
    """The helper module's text: the header, then every helper class."""
    return _HEADER + "".join("\n\n" + source for source in CLASSES.values())


@functools.lru_cache(maxsize=None)
def module_bytes() -> bytes:
    return module_text().encode()


def is_helper_module(data: bytes) -> bool:
    """The helper module as this release or an earlier one wrote it, unedited: ours, not user code."""
    if data == module_bytes():
        return True
    return data.startswith(_FIRST_LINE.encode()) and hashlib.sha256(data).hexdigest() in EARLIER_TEXTS


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


def importers(text: str, module: str) -> list[int]:
    """1-based lines of ``text`` that import from the helper module (a notebook's JSON counts its lines)."""
    pattern = re.compile(rf"(?<![\w.])from\s+{re.escape(module)}\s+import\b")
    return [text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)]

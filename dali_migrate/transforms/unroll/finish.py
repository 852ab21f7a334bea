"""What the unroll adds to the whole module once its pipelines are rewritten (``ModuleFinish.finish``).

The run-time helper classes the rewritten code uses (``EpochIterator``, ``ReaderStream``, ``Prefetch``,
``SampleSplit``, the TensorFlow and JAX adapters): imported from the project's helper module (``helpers.py``; the
imports pass writes the line), or, where no helper module can be written, each definition inline after the
module's imports, above its first use. And the module's one ``set_num_threads``, grown before the first pipeline
definition to the largest constant num_threads (``plan_params`` decided which pipelines share it).
"""

from __future__ import annotations

import functools

import libcst as cst

from ...source import register_names
from ..imports import first_use
from ...walk import node_children
from . import epoch_iterator, frameworks, per_sample, prefetch, rules, stream
from . import helpers as helpers_module
from .generator_code import grow_statement
from .definitions import _is_docstring


@functools.lru_cache(maxsize=None)
def _helper_class(source: str) -> cst.ClassDef:
    """A helper class, parsed once per process (nodes are immutable: every module that needs it can hold
    the same one)."""
    cls = cst.parse_statement(source)
    return cls.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])


@functools.lru_cache(maxsize=None)
def _helper_words(source: str) -> dict:
    """Each node of a helper class with the names in it (attributes and keywords too): what later passes
    could react to there (``MigrationContext.built_words``)."""
    found: dict = {}
    register_names(_helper_class(source), found, node_children)
    return found


def _defines(module: cst.Module, name: str) -> bool:
    return any(isinstance(s, (cst.ClassDef, cst.FunctionDef)) and s.name.value == name for s in module.body)


def _after_imports(module: cst.Module, before: int | None = None) -> int:
    index = 0
    for i, statement in enumerate(module.body):
        if before is not None and i >= before:
            break
        if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body):
            index = i + 1
        elif i == 0 and _is_docstring(statement):
            index = 1
    return index


class ModuleFinish:
    """The ``Unroller``'s part for the whole module (a mixin: its state is the ``Unroller``'s)."""

    def finish(self, module: cst.Module) -> cst.Module:
        module = self._grow_threads_once(module)
        helpers = [(self.need_epoch_iterator, epoch_iterator.CLASS_NAME),
                   # (source helpers that return ReaderStreams need the class too, whatever the pipelines need)
                   (self.need_stream or self.ctx.facts.get("source_streams"), stream.CLASS_NAME),
                   (self.need_prefetch, prefetch.CLASS_NAME),
                   (self.need_sample_split, per_sample.CLASS_NAME),
                   (self.need_jax_iterator, frameworks.JAX_NAME),
                   (self.need_tf_dataset, frameworks.TF_NAME),
                   (self.need_tf_iterator, frameworks.TF_OP_NAME)]
        needed = [name for wanted, name in helpers if wanted and not _defines(module, name)]
        if self.need_jax_iterator and epoch_iterator.CLASS_NAME in needed \
                and first_use(module, epoch_iterator.CLASS_NAME, self.ctx.may_mention) is None:
            needed.remove(epoch_iterator.CLASS_NAME)  # only JaxEpochIterator's base: the helper module brings it
        self.ctx.facts["helpers"] = sorted(needed)
        shared = self.ctx.facts.get("helper_module", helpers_module.DEFAULT_MODULE)
        if shared and needed:  # the project's helper module (helpers.py): the imports pass imports them
            self.ctx.facts["helper_import"] = (helpers_module.import_line(shared, needed), needed)
        else:  # no helper module can be written (a user's file of that name): each definition inline
            for name in reversed([n for n in helpers_module.needed(needed) if not _defines(module, n)]):
                module = self._insert_helper(module, helpers_module.class_source(name),
                                             first_use(module, name, self.ctx.may_mention))
        self.ctx.facts["migrated"] = True
        self.ctx.facts["uses_ndd"] = True
        return module

    def _insert_helper(self, module: cst.Module, source: str, before: int | None) -> cst.Module:
        """A run-time helper class (``EpochIterator``, ``Prefetch``) written into the module after its imports
        above ``before``, the first statement that uses it (in a notebook the last import can sit in a later
        cell than the pipeline)."""
        index = _after_imports(module, before)
        cls = _helper_class(source)
        self.ctx.built_words.update(_helper_words(source))
        body = list(module.body)
        body.insert(index, cls)
        if index + 1 < len(body):  # two blank lines after the class, as before any top-level code
            after = body[index + 1]
            blanks = 0
            for line in after.leading_lines:
                if line.comment is not None:
                    break
                blanks += 1
            if blanks < 2:
                body[index + 1] = after.with_changes(
                    leading_lines=[cst.EmptyLine()] * (2 - blanks) + list(after.leading_lines))
                if after in self.ctx.kept_statements:  # only blank lines added: still the kept unit's, untouched
                    self.ctx.kept_statements.add(body[index + 1])
                    # the same statement: the marker the engine puts on it (by identity) still finds it
                    self.ctx.facts.setdefault("same_statements", {})[body[index + 1]] = after
        return module.with_changes(body=body)

    def _grow_threads_once(self, module: cst.Module) -> cst.Module:
        """The module's one ``set_num_threads`` (``plan_params``), before the first pipeline definition that
        needs it: grown to the largest constant num_threads, never shrunk (as the per-generator block did)."""
        threads = getattr(self, "module_threads", 0)
        if threads <= 1:
            return module
        names = set(self.module_thread_pipelines)
        body = list(module.body)
        for index, statement in enumerate(body):
            if isinstance(statement, cst.FunctionDef) and statement.name.value in names:
                break
        else:
            return module
        grow = grow_statement(threads)
        statement = body[index]
        grow = grow.with_changes(leading_lines=statement.leading_lines)
        body[index] = statement.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
        body.insert(index, grow)
        first = self.descs.get(statement.name.value)
        self.report(rules.NUM_THREADS.id, f"the thread pool is grown once, before the first pipeline, to the largest "
                    f"num_threads the pipelines of this module are given ({threads}: {', '.join(sorted(names))}); "
                    f"the thread count changes speed only", first.node if first is not None else None)
        return module.with_changes(body=body)

"""Parsing and printing libcst trees fast, and where their nodes are: what the engine, the passes, the flow
model and the post-check share, below all of them (it imports nothing of the package but the walker).

The parse skips libcst's per-node validation (``parse_module``); templates the passes build from text are
kept per process and their names recorded (``built_words``); one codegen walk gives the printed text and
every node's place (``Layout``); the final print copies what no pass changed (``print_code``).
"""

from __future__ import annotations

import functools
import re
import threading
from bisect import bisect_right
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import accumulate

import libcst as cst
from libcst._nodes.base import CSTNode
from libcst._nodes.internal import CodegenState
from libcst.metadata import MetadataWrapper, PositionProvider


def _positions(module: cst.Module) -> dict[cst.CSTNode, tuple[int, int]]:
    """libcst's PositionProvider start positions (the reference the fast version is tested against)."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return {node: (r.start.line, r.start.column) for node, r in wrapper.resolve(PositionProvider).items()}


# Whitespace, comments and punctuation: passes never enter them (``walk``'s layout fields),
# and findings never point at them, so their places are not recorded (an eighth of the printing walk).
_LAYOUT_NODES = frozenset({cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.Newline,
                           cst.EmptyLine, cst.Comment, cst.LeftParen, cst.RightParen, cst.Comma, cst.Semicolon})


@dataclass
class _StartTokenState(CodegenState):
    """Codegen that notes, per node, the index of its first token (syntactic start, as
    PositionProvider has it); offsets and lines are worked out once at the end. Printing and
    positions in one walk, at about the cost of a plain print (PositionProvider costs ~6x a print)."""

    starts: dict = field(default_factory=dict)
    stack: list = field(default_factory=list)
    extents: dict = field(default_factory=dict)  # node -> (first token, token after the last)

    def before_codegen(self, node) -> None:
        if type(node) not in _LAYOUT_NODES:
            self.stack.append(len(self.tokens))

    def after_codegen(self, node) -> None:
        if type(node) not in _LAYOUT_NODES:
            start = self.stack.pop()
            self.starts.setdefault(node, start)
            self.extents[node] = (start, len(self.tokens))

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        kind = _RECORDED.get(type(node))
        if kind is None:
            kind = _RECORDED[type(node)] = _recorded(type(node))
        if kind == _NEVER or (kind == _IF_PARENTHESIZED and not node.lpar):
            # Layout, or an expression without parentheses: it starts where its codegen starts (after_codegen).
            return _NO_RECORD
        return _RecordStart(self, node, start_node)


_NEVER, _IF_PARENTHESIZED, _ALWAYS = range(3)
_RECORDED: dict[type, int] = {}


def _recorded(node_type: type) -> int:
    """Whether a node's syntactic start can differ from its first token: never for layout; for an
    expression, only after its parentheses (libcst records it inside ``_parenthesize``)."""
    if node_type in _LAYOUT_NODES:
        return _NEVER
    if issubclass(node_type, cst.BaseExpression):
        return _IF_PARENTHESIZED
    return _ALWAYS


class _RecordStart:
    """``record_syntactic_position`` as a plain context manager (libcst's is a generator-based
    @contextmanager, entered for most nodes: several times slower)."""

    __slots__ = ("state", "node", "start_node", "start")

    def __init__(self, state, node, start_node):
        self.state, self.node, self.start_node = state, node, start_node

    def __enter__(self):
        self.start = len(self.state.tokens)

    def __exit__(self, *exc):
        starts = self.state.starts
        starts[self.node] = starts[self.start_node] if self.start_node is not None else self.start
        return False


class _PlainState(CodegenState):
    """libcst's codegen without its generator-based no-op ``record_syntactic_position``."""

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _NO_RECORD


_NO_RECORD = nullcontext()


def print_code(module: cst.Module, layout: "Layout | None" = None) -> str:
    """``module.code``, about a quarter faster; with the ``layout`` of the parsed module, the parts a pass
    left unchanged are copied from its text instead of being printed again (a quarter of the print).

    A node of the parsed module prints as its old text when nothing around it can change that text:
    it is called without the arguments (commas, separators) a parent passes, and either it is a
    statement whose line starts with the same indentation as before, or its text holds no line
    break (a one-line expression prints the same at any depth)."""
    if not fast_libcst():
        return module.code
    state = _PlainState(default_indent=module.default_indent, default_newline=module.default_newline)
    if layout is None:
        module._codegen(state)
        return "".join(state.tokens)
    code, offsets, extents, starts, tokens = layout.code, layout.offsets, layout.extents, layout.starts, state.tokens

    own_state = state

    def reusing_codegen(node, state, **kwargs):
        if state is not own_state:  # a print of something else (another thread) while switched: as usual
            return _ORIGINAL["_codegen"](node, state, **kwargs)
        extent = None if kwargs else extents.get(node)
        if extent is not None:
            begin, end = offsets[extent[0]], offsets[extent[1]]
            if isinstance(node, STATEMENTS):
                start = offsets[starts[node]]
                line_start = max(code.rfind("\n", 0, start), code.rfind("\r", 0, start)) + 1
                if code[end - 1:end] in ("\n", "\r") and code[line_start:start] == "".join(state.indent_tokens):
                    # The line break as a token of its own: a module without a final one pops it.
                    cut = end - 2 if code[end - 2:end] == "\r\n" else end - 1
                    tokens.append(code[begin:cut])
                    tokens.append(code[cut:end])
                    return
            else:
                text = code[begin:end]
                if "\n" not in text and "\r" not in text:
                    tokens.append(text)
                    return
        node._codegen_impl(state, **kwargs)  # _PlainState's before/after_codegen do nothing

    with _switched("_codegen", reusing_codegen):
        module._codegen(state)
    return "".join(tokens)


STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)  # what holds a line (markers, indentation)
_ORIGINAL = {"_codegen": CSTNode._codegen, "__post_init__": CSTNode.__post_init__}
_SWITCH_LOCK = threading.Lock()


def _node_classes() -> set[type]:
    found, stack = set(), [CSTNode]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    return found


def libcst_internals_problem() -> str | None:
    """What differs, in the installed libcst, from the internals the engine switches (``_switched``), or None.

    The speed-ups replace ``CSTNode._codegen`` (print: copy what no pass changed) and
    ``CSTNode.__post_init__`` (parse: no per-node validation) on the base class for the length of one call.
    That holds only while every node's print goes through ``CSTNode._codegen(self, state, **kwargs)``, which
    calls ``_codegen_impl``, and every node's validation through ``CSTNode.__post_init__`` -> ``_validate``,
    with no node class overriding either. When that is not so (a libcst release changed them), the engine
    uses plain libcst instead: slower, and as correct as libcst (``fast_libcst``)."""
    import inspect

    try:
        codegen = list(inspect.signature(_ORIGINAL["_codegen"]).parameters.values())
        if [p.name for p in codegen[:2]] != ["self", "state"] or codegen[-1].kind is not inspect.Parameter.VAR_KEYWORD:
            return f"CSTNode._codegen{inspect.signature(_ORIGINAL['_codegen'])} is not (self, state, **kwargs)"
        if list(inspect.signature(_ORIGINAL["__post_init__"]).parameters) != ["self"]:
            return f"CSTNode.__post_init__{inspect.signature(_ORIGINAL['__post_init__'])} is not (self)"
        overriding = sorted(c.__name__ for c in _node_classes()
                            if "_codegen" in c.__dict__ or "__post_init__" in c.__dict__)
        if overriding:
            return "node classes override CSTNode._codegen or __post_init__: " + ", ".join(overriding[:5])
        missing = sorted(c.__name__ for c in _node_classes()
                         if not getattr(c, "__abstractmethods__", None) and not callable(getattr(c, "_codegen_impl", None)))
        if missing:
            return "node classes without _codegen_impl: " + ", ".join(missing[:5])
        # Validation happens in __post_init__: an empty Name is refused, and accepted with it switched off.
        try:
            cst.Name("")
            return "CSTNode.__post_init__ no longer validates (cst.Name('') was accepted)"
        except cst.CSTValidationError:
            pass
        with _switched("__post_init__", _no_validation):
            cst.Name("")
        # Printing goes through CSTNode._codegen, node by node.
        sample = "import a as b\n\n\n@d\ndef f(x, *, y=1):\n    return [x async for x in y] if x else {**y}\n"
        module = cst.parse_module(sample)
        seen = []

        def counting(node, state, **kwargs):
            seen.append(node)
            return _ORIGINAL["_codegen"](node, state, **kwargs)

        with _switched("_codegen", counting):
            printed = module.code
        if printed != sample or not any(type(node) is cst.Name for node in seen):
            return "printing a module no longer goes through CSTNode._codegen for each node"
    except Exception as e:  # anything unexpected in the probe means: do not switch
        return f"probing libcst's internals failed: {type(e).__name__}: {e}"
    return None


@contextmanager
def _switched(attribute: str, replacement):
    """``CSTNode.<attribute>`` replaced for the length of the block, then libcst's own again. The switch is
    process-wide: one at a time, under a lock."""
    with _SWITCH_LOCK:
        setattr(CSTNode, attribute, replacement)
        try:
            yield
        finally:
            setattr(CSTNode, attribute, _ORIGINAL[attribute])


def _no_validation(self) -> None:
    pass


@functools.lru_cache(maxsize=None)
def fast_libcst() -> bool:
    """Whether the engine may switch libcst's internals (checked once per process, at the first parse or
    print); tests/test_libcst_internals.py fails, saying what changed, when it may not."""
    return libcst_internals_problem() is None


def parse_module(text: str) -> cst.Module:
    """``cst.parse_module(text)``, without libcst's per-node ``_validate`` (a sixth of a parse).

    Every node the parser builds runs ``__post_init__`` -> ``_validate``, which checks what hand-built
    nodes could get wrong (an empty Name, parentheses that do not pair); what the parser builds from
    text it has just parsed holds those by construction (libcst's own PERF note on ``__post_init__``
    says as much). Nodes built anywhere else, passes included, are validated as usual. The round-trip
    check that follows every parse compares the printed tree with the text byte for byte."""
    return _without_validation(cst.parse_module, text)


def parse_statement(text: str) -> cst.BaseStatement:
    """``cst.parse_statement(text)`` without per-node validation (see ``parse_module``): passes build
    new statements from text. During a migration the node and its parts go into ``built_words`` with
    the names in them, so that later passes skip those without one of theirs."""
    return _template(cst.parse_statement, text)


def parse_expression(text: str) -> cst.BaseExpression:
    """``cst.parse_expression(text)``, as ``parse_statement``."""
    return _template(cst.parse_expression, text)


# The running migration's ``MigrationContext.built_words`` (None outside one).
_BUILT_WORDS: ContextVar[dict | None] = ContextVar("built_words", default=None)


def _template(parse, text: str) -> cst.CSTNode:
    """A parsed template. Nodes are immutable, so modules may share one: the parse is kept per process
    (most templates are the same text in every file), but a node is never handed out twice in one
    migration (positions and findings belong to one place in a module): a second use is parsed anew."""
    registry = _BUILT_WORDS.get()
    if registry is None:
        return _without_validation(parse, text)
    node, names = _parsed_template(parse, text)
    if node in registry:  # the root is always there once handed out, even a leaf
        from .walk import node_children
        node = _without_validation(parse, text)
        registry[node] = register_names(node, registry, node_children)
        return node
    registry.update(names)
    return node


@functools.lru_cache(maxsize=4096)
def _parsed_template(parse, text: str) -> tuple[cst.CSTNode, dict]:
    from .walk import node_children
    node = _without_validation(parse, text)
    names: dict = {}
    names[node] = register_names(node, names, node_children)
    return node, names


def register_names(node: cst.CSTNode, registry: dict, children) -> frozenset:
    """Every node of a freshly parsed template (leaves aside) into ``registry`` with the names in its
    subtree (names are what passes follow: a template without a pass's names cannot concern it, nor can
    its parts)."""
    below = children(node)
    if not below:  # a leaf: skipping it saves nothing, so it is not registered
        return frozenset((node.value,)) if type(node) is cst.Name else _NO_NAMES
    names = set()
    for child in below:
        names |= register_names(child, registry, children)
    found = registry[node] = frozenset(names)
    return found


_NO_NAMES = frozenset()


def _without_validation(parse, text: str):
    if not fast_libcst():
        return parse(text)
    with _switched("__post_init__", _no_validation):
        return parse(text)


def code_for_node(node: cst.CSTNode) -> str:
    """``cst.Module([]).code_for_node(node)`` with ``print_code``'s lighter codegen state."""
    state = _PlainState(default_indent="    ", default_newline="\n")
    node._codegen(state)
    return "".join(state.tokens)


_NEWLINE = re.compile(r"\r\n?|\n")


def line_starts(text: str) -> list[int]:
    """The offset where each line of ``text`` starts (line breaks as Python counts them: CRLF, CR, LF)."""
    starts = [0]
    starts += [match.end() for match in _NEWLINE.finditer(text)]
    return starts


# An identifier-like word, wherever it stands (code, strings, comments): what mention checks, elision
# and unroll's cold statements count as a word of a text.
WORD = re.compile(r"[^\W\d]\w*")


class Layout:
    """Where the nodes of a printed module are: token extents, turned into offsets and lines on demand
    (a migration asks for a few of them; working all of them out costs a tenth of a parse)."""

    def __init__(self, code: str, tokens: list[str], starts: dict, extents: dict):
        self.code = code
        self.starts = starts  # node -> index of its first token (its syntactic start)
        self.extents = extents  # node -> (first token, token after the last)
        offsets = list(accumulate(map(len, tokens), initial=0))
        # A module without a trailing newline pops its last token after the nodes were recorded.
        offsets.extend([offsets[-1]] * 2)
        self.offsets = offsets
        self._line_starts: list[int] | None = None

    def span(self, node) -> tuple[int, int] | None:
        extent = self.extents.get(node)
        return None if extent is None else (self.offsets[extent[0]], self.offsets[extent[1]])

    def line_column(self, token: int) -> tuple[int, int]:
        """(1-based line, 0-based column) where a token starts."""
        return self.offset_line_column(self.offsets[token])

    def offset_line_column(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = line_starts(self.code)
        line = bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1]


def print_with_positions(module: cst.Module) -> tuple[str, dict[cst.CSTNode, tuple[int, int]]]:
    """``(module.code, {node: (line, column)})`` from a single codegen walk."""
    code, layout = print_with_spans(module)
    return code, {node: layout.line_column(token) for node, token in layout.starts.items()}


def print_with_spans(module: cst.Module) -> tuple[str, Layout]:
    """``(module.code, layout)`` from one codegen walk. A node's span is the text its own codegen
    wrote (leading blank lines and comments too)."""
    state = _StartTokenState(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    code = "".join(state.tokens)
    return code, Layout(code, state.tokens, state.starts, state.extents)


"""Walking libcst trees without rebuilding what does not change: a read-only ``walk`` and a
``transform`` that rebuilds only the nodes whose children changed."""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import re
import textwrap
import typing

import libcst as cst

# -- a read-only walk -----------------------------------------------------------------------------
# libcst's ``node.visit(visitor)`` rebuilds every node it passes, even for a read-only CSTVisitor, so
# a visitor costs about as much as a parse. ``walk`` calls the same ``on_visit``/``on_leave`` hooks
# without rebuilding anything (about 6x faster). It follows the dataclass fields of each node, so
# the children of one node come in field order (a function's body before its decorators), and it
# does not enter layout: whitespace, comments, empty lines, parentheses, commas and semicolons.
# Use it for visitors that read code, not layout, and do not depend on the order of a node's
# children (statements of a block and elements of a list keep their order).
_LAYOUT_FIELDS = {"lpar", "rpar", "leading_lines", "lines_after_decorator", "header", "footer", "comma",
                  "semicolon", "newline", "trailing_whitespace"}
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS[cls] = tuple(
            f.name for f in dataclasses.fields(cls)
            if not f.name.startswith("whitespace") and f.name not in _LAYOUT_FIELDS and _may_hold_nodes(f.type))
    return names


def _may_hold_nodes(annotation) -> bool:
    """Whether a field of this declared type can hold a node: ``Name.value: str`` and ``Arg.star: Literal[...]``
    never do (read from libcst's own annotations; anything unclear counts as a node)."""
    if isinstance(annotation, type):
        return issubclass(annotation, cst.CSTNode) or issubclass(annotation, (list, tuple))
    if typing.get_origin(annotation) is typing.Literal:
        return False
    arguments = typing.get_args(annotation)
    return not arguments or any(_may_hold_nodes(a) for a in arguments)


def mentioning(may_mention, words: frozenset):
    """``walk``'s ``keep`` for a visitor that finds only what says one of ``words``: the subtrees whose text may say
    one (``may_mention(node, words)``: ``MigrationContext.may_mention``); None, every subtree, without it."""
    return None if may_mention is None else (lambda node: may_mention(node, words))


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor, keep=None) -> None:
    """``node.visit(visitor)`` for a read-only visitor, without rebuilding the tree.

    ``keep(node) -> bool``, when given, is asked before each node: a node it turns down is skipped
    with its whole subtree, as if it were not there (no hooks run for it)."""
    cls = type(visitor)
    if cls.on_visit is _BASE_ON_VISIT and cls.on_leave is _BASE_ON_LEAVE:
        _walk_hooks(node, visitor, cls, keep)  # the usual case: only visit_<Node>/leave_<Node> methods
    else:
        _walk(node, visitor, keep)


_BASE_ON_VISIT, _BASE_ON_LEAVE = cst.CSTVisitor.on_visit, cst.CSTVisitor.on_leave
_NODE, _SEQ, _OTHER = 1, 2, 3  # all true: ``_VALUE_KIND.get(t) or _value_kind(v)`` misses only unseen types
_VALUE_KIND: dict[type, int] = {list: _SEQ, tuple: _SEQ}


def _value_kind(value) -> int:
    """_NODE for a node, _SEQ for a list or tuple, _OTHER for anything else (cached by type: ``isinstance``
    against libcst's abstract node classes is slow)."""
    cls = type(value)
    kind = _VALUE_KIND.get(cls)
    if kind is None:
        kind = _VALUE_KIND[cls] = _NODE if issubclass(cls, cst.CSTNode) else _OTHER
    return kind


def node_children(node) -> list:
    """The child nodes a walk enters, in field order (layout left out)."""
    found = []
    for name in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
        value = getattr(node, name)
        kind = _VALUE_KIND.get(type(value)) or _value_kind(value)
        if kind == _NODE:
            found.append(value)
        elif kind == _SEQ:
            found.extend(item for item in value if (_VALUE_KIND.get(type(item)) or _value_kind(item)) == _NODE)
    return found


def _walk(node, visitor, keep=None):
    if keep is not None and not keep(node):
        return
    if visitor.on_visit(node):
        for child in node_children(node):
            _walk(child, visitor, keep)
    visitor.on_leave(node)


_HOOKS: dict[tuple[type, type], tuple] = {}
_LINE_HOLDERS: dict[type, bool] = {}


def holds_a_line(node_type: type) -> bool:
    """``issubclass(node_type, (SimpleStatementLine, BaseCompoundStatement))``, cached by type: visitors ask it
    of every node, and ``isinstance`` against libcst's abstract classes is slow."""
    found = _LINE_HOLDERS.get(node_type)
    if found is None:
        found = _LINE_HOLDERS[node_type] = issubclass(node_type, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    return found


def line_hooks(cls: type) -> type:
    """A class decorator for a read-only visitor that does something around every statement (a node that
    ``holds_a_line``) before and after that statement's own hooks: ``enter_line(node)`` before its ``visit_<Node>``,
    ``leave_line(node)`` after its ``leave_<Node>``. The same calls, in the same order, as an ``on_visit`` that runs
    ``enter_line`` for a statement and then the visit hook, and an ``on_leave`` that runs the leave hook and then
    ``leave_line``; but the visitor keeps libcst's own on_visit/on_leave, so ``walk`` takes its fast path
    (``_walk_hooks``) instead of two method calls and a hook lookup per node of the tree."""
    for node_type in _LINE_TYPES:
        name = node_type.__name__
        setattr(cls, "visit_" + name, _entering_line(getattr(cls, "visit_" + name, None)))
        setattr(cls, "leave_" + name, _leaving_line(getattr(cls, "leave_" + name, None)))
    return cls


def _entering_line(visit):
    def visit_line(self, node):
        self.enter_line(node)
        return None if visit is None else visit(self, node)
    return visit_line


def _leaving_line(leave):
    def leave_line(self, node):
        if leave is not None:
            leave(self, node)
        self.leave_line(node)
    return leave_line


_LINE_TYPES = tuple(node_type for node_type in vars(cst).values() if isinstance(node_type, type)
                    and issubclass(node_type, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
                    and not inspect.isabstract(node_type))


def hooks_for(cls: type, node_type: type) -> tuple:
    """``(visit_<Node>, leave_<Node>)`` functions of a visitor or transformer class for ``node_type``,
    None where it has none (looked up once per class and node type: libcst's on_visit/on_leave format
    the name and call getattr for every node)."""
    found = _HOOKS.get((cls, node_type))
    if found is None:
        name = node_type.__name__
        found = _HOOKS[cls, node_type] = (getattr(cls, "visit_" + name, None), getattr(cls, "leave_" + name, None))
    return found


def _walk_hooks(node, visitor, cls, keep=None):
    """``_walk`` for a visitor with libcst's own on_visit/on_leave, dispatching through ``hooks_for``."""
    plans = _PLANS.get(cls) or _PLANS.setdefault(cls, {list: _SEQUENCE_PLAN, tuple: _SEQUENCE_PLAN})
    plan = plans.get(type(node)) or _plan(plans, cls, node)
    if plan is not _INERT:
        _walk_plans(node, plan, visitor, plans, cls, keep)


# Per visitor class, per type of a field's value: for a node, (visit hook, leave hook, child fields); ``_INERT`` for
# what the walk has nothing to do with (not a node; or a node without hooks or child fields, such as a ``Dot``);
# ``_SEQUENCE_PLAN`` for a list or tuple. One lookup per value, made by the parent: a value with nothing to do
# costs no call, where ``_HOOKS`` needed a (class, type) tuple built and hashed and ``_CHILD_FIELDS`` a second lookup.
_PLANS: dict[type, dict[type, tuple]] = {}
_INERT, _SEQUENCE_PLAN = (None, None, ()), (None, None, ("sequence",))


def _plan(plans: dict, cls: type, value) -> tuple:
    value_type = type(value)
    if _value_kind(value) != _NODE:
        plan = _INERT
    else:
        visit, leave = hooks_for(cls, value_type)
        fields = _child_fields(value_type)
        plan = _INERT if visit is None and leave is None and not fields else (visit, leave, fields)
    plans[value_type] = plan
    return plan


def _walk_plans(node, plan, visitor, plans, cls, keep):
    if keep is not None and not keep(node):
        return
    visit, leave, fields = plan
    if visit is None or visit(visitor, node) is not False:
        # ``node_children`` inlined: this is the walk every pass's read-only visitor takes, and building
        # a list per node cost 0.05-0.08x of a bare round trip on the speed corpus.
        for name in fields:
            value = getattr(node, name)
            child = plans.get(type(value)) or _plan(plans, cls, value)
            if child is _SEQUENCE_PLAN:
                for item in value:
                    child = plans.get(type(item)) or _plan(plans, cls, item)
                    if child is not _INERT and child is not _SEQUENCE_PLAN:
                        _walk_plans(item, child, visitor, plans, cls, keep)
            elif child is not _INERT:
                _walk_plans(value, child, visitor, plans, cls, keep)
    if leave is not None:
        leave(visitor, node)


def walk_many(node: cst.CSTNode, visitors) -> None:
    """``walk(node, v)`` for each read-only visitor in ``visitors``, in one traversal: each visitor
    gets exactly the hook calls, in the order, that its own walk would give it (a visitor whose
    ``visit_<Node>`` returns False misses that subtree; the others go on into it). Visitors must keep
    libcst's own on_visit/on_leave, and must not depend on each other."""
    active = []
    for visitor in visitors:
        cls = type(visitor)
        if cls.on_visit is not _BASE_ON_VISIT or cls.on_leave is not _BASE_ON_LEAVE:
            raise TypeError(f"walk_many: {cls.__name__} overrides on_visit/on_leave")
        active.append((visitor, cls))
    _walk_many(node, active)


def _walk_many(node, active):
    ntype = type(node)
    entered = []
    for visitor, cls in active:
        visit_hook = (_HOOKS.get((cls, ntype)) or hooks_for(cls, ntype))[0]
        if visit_hook is None or visit_hook(visitor, node) is not False:
            entered.append((visitor, cls))
    if entered:
        for child in node_children(node):
            _walk_many(child, entered)
    for visitor, cls in active:
        leave_hook = _HOOKS[cls, ntype][1]
        if leave_hook is not None:
            leave_hook(visitor, node)


# -- a transform that rebuilds only what changed --------------------------------------------------
# libcst's ``node.visit(transformer)`` builds a new copy of every node it enters (constructor and
# validation included), changed or not. ``transform`` calls the same hooks in the same order and
# with the same sentinel rules, but a node whose children all come back as the very same objects is
# passed on as itself, so a transformer that rewrites a few names rebuilds only their ancestors.
# The order of a node's fields, and how each is visited, is read from libcst's own
# ``_visit_and_replace_children`` of that node class (derived, not transcribed); the few classes
# whose method is not a plain field-by-field rebuild use libcst's method itself.
_REQUIRED, _OPTIONAL, _SENTINEL, _SEQUENCE, _BODY, _EITHER, _COPY = range(7)
_KINDS = {"visit_required": _REQUIRED, "visit_optional": _OPTIONAL, "visit_sentinel": _SENTINEL,
          "visit_sequence": _SEQUENCE, "visit_body_sequence": _BODY}
_VISIT_ORDER: dict[type, tuple[tuple[str, int], ...] | None] = {}


def _constructor_call(body: list) -> ast.AST | None:
    """The ``Cls(...)`` call a ``_visit_and_replace_children`` returns: ``return Cls(...)``, or
    ``ret = Cls(...); return ret``, after any ``name = self.field`` lines and the docstring."""
    body = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            and not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Attribute))]
    if len(body) == 1 and isinstance(body[0], ast.Return):
        return body[0].value
    if len(body) == 2 and isinstance(body[0], ast.Assign) and isinstance(body[1], ast.Return) \
            and isinstance(body[1].value, ast.Name) and len(body[0].targets) == 1 \
            and isinstance(body[0].targets[0], ast.Name) and body[0].targets[0].id == body[1].value.id:
        return body[0].value
    return None


def _field_kind(name: str, value: ast.AST) -> int | None:
    """How libcst visits one field: ``visit_*(self, "name", ...)``, a plain copy of ``self.name``
    or of a local holding it, or ``visit_a(...) if ... else visit_b(...)`` (the field's value then
    decides at run time: a node is visited, a sequence is visited item by item, None is kept)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _KINDS \
            and len(value.args) >= 2 and isinstance(value.args[1], ast.Constant) and value.args[1].value == name:
        return _KINDS[value.func.id]
    if isinstance(value, ast.Attribute) and value.attr == name:
        return _COPY
    if isinstance(value, ast.IfExp):
        branches = [_field_kind(name, value.body), _field_kind(name, value.orelse)]
        if all(kind in (_REQUIRED, _SEQUENCE) or (kind is None and _keeps_none(branch))
               for kind, branch in zip(branches, (value.body, value.orelse))):
            return _EITHER
    return None


def _keeps_none(branch: ast.AST) -> bool:
    """The branch of ``visit_x(...) if x is not None else <branch>`` that keeps None: the local holding the field
    (``... else format_spec``) or the literal (``... else None``, FormattedStringExpression's format_spec)."""
    return isinstance(branch, ast.Name) or isinstance(branch, ast.Constant) and branch.value is None


def _visit_order(cls: type) -> tuple[tuple[str, int], ...] | None:
    """``((field, kind), ...)`` in the order libcst visits ``cls``'s children, or None when its
    ``_visit_and_replace_children`` is not a plain ``return Cls(field=visit_*(self, "field", ...))``."""
    if cls in _VISIT_ORDER:
        return _VISIT_ORDER[cls]
    order = None
    method = next((klass.__dict__["_visit_and_replace_children"] for klass in cls.__mro__
                   if "_visit_and_replace_children" in klass.__dict__), None)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
        call = _constructor_call(tree.body[0].body)
        if isinstance(call, ast.Call) and not call.args and (
                (isinstance(call.func, ast.Name) and call.func.id == cls.__name__)
                or ast.unparse(call.func) == "self.__class__"):
            fields = [(keyword.arg, _field_kind(keyword.arg, keyword.value)) for keyword in call.keywords]
            if all(kind is not None for _, kind in fields):
                order = tuple((name, kind) for name, kind in fields if kind != _COPY)
    except (OSError, TypeError, SyntaxError, IndexError):
        order = None
    _VISIT_ORDER[cls] = order
    return order


_ATTRIBUTE_HOOKS: dict[type, bool] = {}


def has_attribute_hooks(transformer: cst.CSTTransformer) -> bool:
    """Whether the transformer defines any ``visit_<Node>_<field>``/``leave_<Node>_<field>`` hook or its own
    ``on_visit_attribute``/``on_leave_attribute`` (if not, those calls are skipped: they would do nothing)."""
    cls = type(transformer)
    found = _ATTRIBUTE_HOOKS.get(cls)
    if found is None:
        found = _ATTRIBUTE_HOOKS[cls] = any(
            _ATTRIBUTE_HOOK.match(name) for klass in cls.__mro__ if klass not in _LIBCST_BASES
            for name in klass.__dict__)
    return found


_ATTRIBUTE_HOOK = re.compile(r"(visit|leave)_[A-Z][A-Za-z]*_[a-z_]+$|on_(visit|leave)_attribute$")
_LIBCST_BASES = {cst.CSTTransformer, cst.CSTVisitor, object, *cst.CSTTransformer.__mro__}


def transform(node: cst.CSTNode, transformer: cst.CSTTransformer, *, layout: bool = True):
    """``node.visit(transformer)``, rebuilding only the nodes whose children changed.

    ``layout=False`` does not enter layout (the fields ``walk`` leaves out: whitespace, comments, empty
    lines, parentheses, commas, semicolons), for transformers with no hook on such nodes: a third of
    the nodes of a typical module, never changed by such a transformer, so never worth visiting."""
    return _transform(node, transformer, has_attribute_hooks(transformer), layout)


_CODE_ORDER: dict[type, tuple[tuple[str, int], ...] | None] = {}


def _code_order(cls: type) -> tuple[tuple[str, int], ...] | None:
    order = _visit_order(cls)
    if order is not None:
        order = tuple((name, kind) for name, kind in order
                      if not name.startswith("whitespace") and name not in _LAYOUT_FIELDS)
    _CODE_ORDER[cls] = order
    return order


def child_order(cls: type, layout: bool) -> tuple[tuple[str, int], ...] | None:
    """The fields ``transform`` enters for a node class (None: use libcst's own method)."""
    orders = _VISIT_ORDER if layout else _CODE_ORDER
    if cls in orders:
        return orders[cls]
    return _visit_order(cls) if layout else _code_order(cls)


def _transform(node, transformer, hooks, layout):
    if not transformer.on_visit(node):
        updated = node
    else:
        order = child_order(type(node), layout)
        if order is None:
            updated = node._visit_and_replace_children(transformer)
            if same_children(updated, node):
                updated = node
        else:
            recurse = functools.partial(_transform, transformer=transformer, hooks=hooks, layout=layout)
            updated = rebuild_children(node, order, recurse, transformer if hooks else None)
    result = transformer.on_leave(node, updated)
    if result is not node and result is not updated \
            and not isinstance(result, (cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel)):
        raise cst.CSTValidationError("Expected a node of type CSTNode or a RemovalSentinel, "
                                     f"but got a return value of {type(result).__name__}")
    return result


# (by type: ``isinstance`` against them goes through ABCMeta, and these classes have no subclasses)
_SENTINELS = frozenset({cst.RemovalSentinel, cst.FlattenSentinel})


def rebuild_children(node, order, recurse, attribute_hooks=None):
    """``node`` with each child in ``order`` replaced by ``recurse(child)``, following libcst's rules
    for removal and flattening; ``node`` itself when every child came back as itself.
    ``attribute_hooks``: a transformer whose ``on_visit_attribute``/``on_leave_attribute`` to call."""
    changes = None
    for name, kind in order:
        old = getattr(node, name)
        if kind == _EITHER:
            if old is None:
                continue  # libcst's `visit_x(...) if x is not None else x` visits nothing then: no hooks either
            kind = _SEQUENCE if type(old) in (list, tuple) else _REQUIRED
        if attribute_hooks is not None:
            attribute_hooks.on_visit_attribute(node, name)
        if kind == _SEQUENCE or kind == _BODY:
            new = _rebuild_sequence(old, recurse, kind == _BODY)
        elif kind == _REQUIRED:
            new = recurse(old)
            if type(new) in _SENTINELS:
                raise TypeError(f"We got a {type(new).__name__} while visiting a {type(old).__name__}. "
                                "This node's parent does not allow it to be removed or flattened.")
        elif old is None or type(old) is cst.MaybeSentinel:
            new = old
        else:
            new = recurse(old)
            if type(new) is cst.FlattenSentinel:
                raise TypeError(f"We got a FlattenSentinel while visiting a {type(old).__name__}. "
                                "This node's parent does not allow for it to be flattened.")
            if type(new) is cst.RemovalSentinel:
                new = None if kind == _OPTIONAL else cst.MaybeSentinel.DEFAULT
        if attribute_hooks is not None:
            attribute_hooks.on_leave_attribute(node, name)
        if new is not old:
            if changes is None:
                changes = {}
            changes[name] = new
    return node if changes is None else node.with_changes(**changes)


def _rebuild_sequence(children, recurse, body: bool):
    """libcst's ``visit_sequence``/``visit_body_sequence``; ``children`` itself when nothing changed."""
    new_children, changed = [], False
    for child in children:
        new = recurse(child)
        if new is child:
            new_children.append(child)
            continue
        changed = True
        if isinstance(new, cst.RemovalSentinel):
            continue
        for item in (new if isinstance(new, cst.FlattenSentinel) else (new,)):
            # A statement line emptied by removals is dropped (libcst's visit_body_sequence).
            if body and not child._is_removable() and item._is_removable():
                continue
            new_children.append(item)
    return tuple(new_children) if changed else children


_ALL_FIELDS: dict[type, tuple[str, ...]] = {}


def same_children(new: cst.CSTNode, old: cst.CSTNode) -> bool:
    """Every field of ``new`` is the very object in ``old`` (lists element by element)."""
    cls = type(new)
    if cls is not type(old):
        return False
    names = _ALL_FIELDS.get(cls)
    if names is None:
        names = _ALL_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    for name in names:
        a, b = getattr(new, name), getattr(old, name)
        if a is b:
            continue
        if type(a) in (list, tuple) and type(b) in (list, tuple) and len(a) == len(b) \
                and all(x is y for x, y in zip(a, b)):
            continue
        return False
    return True

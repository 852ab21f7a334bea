"""How the flow model (``dataflow.py``) follows ``*args`` and ``**kwargs`` across a call.

Which arguments of a call land in a def's star parameters (``star_landing``), when one ``*x`` is spread over its
positional parameters (``spread_over``), and which defs hand their star parameters on unchanged to
DALIGenericIterator, the EpochIterator once migrated (``forwarded_stars``): that iterator takes its pipelines from
them and decides at run time which kind it got (DM241).
"""

from __future__ import annotations

import libcst as cst

from .walk import walk


# ``forwarded_stars``: the iterators a wrapper may hand its *args/**kwargs to (the EpochIterator: once migrated).
_FORWARD_TARGETS = ("nvidia.dali.plugin.pytorch.DALIGenericIterator",
                    "nvidia.dali.plugin.pytorch.DALIClassificationIterator")
_MIGRATED_ITERATOR = "EpochIterator"  # unroll/epoch_iterator.py CLASS_NAME (not imported: no cycle)
_MIGRATED_CLASSIFICATION = "classification"  # its classmethod with DALIClassificationIterator's signature


class _StarReads(cst.CSTVisitor):
    """Every read of ``names`` (a Name that is not an attribute, a keyword or a parameter), and the ones that are
    the ``*x``/``**x`` argument of a call that takes its pipelines from them (``_forwarding_call``)."""

    def __init__(self, names, imports):
        self.names, self.imports = names, imports
        self.reads: list = []
        self.forwarded: set = set()
        self.calls: list = []
        self._skip: set = set()

    def visit_Attribute(self, node):
        self._skip.add(node.attr)

    def visit_Arg(self, node):
        if node.keyword is not None:
            self._skip.add(node.keyword)

    def visit_Param(self, node):
        self._skip.add(node.name)

    def visit_Call(self, node):
        if not _forwarding_call(node, self.imports):
            return
        stars = [a.value for a in node.args if a.star and isinstance(a.value, cst.Name) and a.value.value in self.names]
        if stars:
            self.forwarded.update(stars)
            self.calls.append(node)

    def visit_Name(self, node):
        if node.value in self.names and node not in self._skip:
            self.reads.append(node)


def _forwarding_call(call: cst.Call, imports) -> bool:
    """``call`` makes DALIGenericIterator or DALIClassificationIterator (or the EpochIterator) and takes its pipelines
    from its ``*``/``**`` arguments: none comes before them by position, and no ``pipelines=`` is given."""
    func, qualname = call.func, imports.qualname(call.func)
    if isinstance(func, cst.Attribute) and func.attr.value == _MIGRATED_CLASSIFICATION:  # EpochIterator.classification
        func = func.value
        qualname = imports.qualname(func)
    # the EpochIterator: written into the module, or imported from the helper module (its name is configurable)
    migrated = isinstance(func, cst.Name) and func.value == _MIGRATED_ITERATOR and (
        qualname is None or not qualname.startswith("nvidia.") and qualname.endswith("." + _MIGRATED_ITERATOR))
    if qualname not in _FORWARD_TARGETS and not migrated:
        return False
    if any(a.keyword is not None and a.keyword.value == "pipelines" for a in call.args):
        return False
    first = next((a for a in call.args if a.keyword is None), None)
    return bool(first.star) if first is not None else any(a.star == "**" for a in call.args)


def forwarded_stars(node, imports) -> tuple[bool, bool, tuple] | None:
    """A def (a function, a method, a class's ``__init__``) that hands its ``*args``/``**kwargs`` on unchanged to
    DALIGenericIterator (the EpochIterator once migrated), which takes its pipelines from them: (whether ``*args``
    carries arguments there, whether ``**kwargs`` does, those iterator calls). None when it has no star parameter,
    or reads one anywhere else (rebound, indexed, passed to anything else): the model then cannot tell where what
    lands there goes. What a caller passes there reaches an iterator that decides at run time (DM241)."""
    if not isinstance(node, cst.FunctionDef):
        return None
    star = node.params.star_arg if isinstance(node.params.star_arg, cst.Param) else None
    starstar = node.params.star_kwarg
    names = {p.name.value for p in (star, starstar) if p is not None}
    if not names:
        return None
    reads = _StarReads(names, imports)
    walk(node.body, reads)
    if not reads.calls or any(read not in reads.forwarded for read in reads.reads):
        return None
    forwarded = {read.value for read in reads.reads}
    return (star is not None and star.name.value in forwarded, starstar is not None and starstar.name.value in
            forwarded, tuple(reads.calls))


def spread_over(args, own) -> bool:
    """A call's arguments (``args``) to a def with parameters ``own`` (self not counted) that unpack one sequence
    over its positional parameters: a single ``*x`` after the plain positional arguments and before only keywords,
    and no ``*args`` on the def to take what is left (each positional parameter left that no keyword names gets an
    element: ``show(*pipe.run())``, ``show(*pipe.run(), title="x")``)."""
    stars = [a for a in args if a.star]
    if len(stars) != 1 or stars[0].star != "*" or any(p[1] == "star" for p in own):
        return False
    at = next(i for i, a in enumerate(args) if a.star)
    return all(a.keyword is None and not a.star for a in args[:at]) and all(
        a.keyword is not None for a in args[at + 1:])


def star_landing(args, positional: int, named, star: bool, starstar: bool) -> list:
    """The arguments of a call (``args``) that a def with ``positional`` positional parameters (self not counted)
    and parameters ``named`` binds to its ``*args`` (``star``) or ``**kwargs`` (``starstar``); none where the call
    unpacks arguments itself (where they land is not known)."""
    if any(a.star for a in args):
        return []
    landing, index = [], 0
    for arg in args:
        if arg.keyword is None:
            if index >= positional and star:
                landing.append(arg)
            index += 1
        elif starstar and arg.keyword.value not in named:
            landing.append(arg)
    return landing

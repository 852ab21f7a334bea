"""Leave out of the libcst parse the top-level statements that no pass can concern.

libcst's parser is the largest cost of a migration, and in a training script most top-level
statements (a model, a schedule, metrics, I/O helpers) have nothing to do with DALI. Python's own
parser (``ast``, about a fifth of libcst's cost) finds the top-level statements and their lines;
those that are *cold* are replaced, line for line, by a one-line placeholder before libcst sees the
text, and put back, byte for byte, after the passes ran.

Cold is decided as ``transforms.base.cold_statements`` decides it for the unroll pass, from the
words of each statement's text (code, strings and comments alike, so a superset of the references):
a statement is hot when it holds an import, mentions a name an import binds to DALI (or to a
pipeline of the project), a word a pass reacts to on any object (``UNROLL_WORDS``), or a name that a
hot statement binds at module level; the module docstring is hot. So are the functions and classes hot code
names, and those they name in turn (``_without_named_definitions``: hot code calls them or hands them on, and
the flow model must read what they do with a DALI value). The rest is cold. Imports stay, and so does the
statement that holds the file's first indented block where leaving it out would change the parsed text's first
indentation (libcst's default indentation, which the passes write with).

A placeholder keeps what the passes may ask of the module around it: it binds, at module level,
the names its statements bind (``_dali_migrate_elided_3 = MEAN = helper = ...``), so that the
data flow still knows them as module names and not as builtins, and a name the passes add never
collides with one of them; ``ModuleSymbols`` gives the unroll pass the definitions behind them
(parsed on demand). The text between statements (blank lines, comments) is kept in the parsed text.

Whatever does not go to plan (the file does not parse with ``ast``, a statement does not start
a line, a placeholder does not come back exactly once and unchanged) means: no elision, the file is
migrated whole, as before. Where a look at the text alone says the split would leave out less than
``WORTH_ELIDING`` of the file (DALI's own test modules: nearly every statement is hot), the engine does
not try it (``worth_eliding``): the ``ast`` parse would cost more than it saves.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import libcst as cst

from .source import WORD, line_starts, parse_module

PREFIX = "_dali_migrate_elided_"
# Words that make every word of a statement a possible module-level binding.
_REBINDING_WORDS = {"global", "nonlocal", "match"}


@dataclass(eq=False)  # units are compared by identity (a field-by-field == made the fixpoint slow)
class Unit:
    """One or more top-level statements on lines ``first``..``last`` (1-based, inclusive)."""

    first: int
    last: int
    statements: list[ast.stmt]
    text: str = ""
    words: set[str] = field(default_factory=set)
    bound: set[str] | None = None
    placeholder: str = ""


@dataclass
class Elision:
    """The text libcst parses, and how to map it back to the file."""

    text: str  # what libcst parses: cold units replaced by placeholder lines
    units: dict[str, Unit]  # placeholder name -> the cold unit it stands for
    line_map: list[int]  # line of ``text`` (1-based, index 0 unused) -> line of ``source``
    _names: set[str] | None = None

    def original_line(self, line: int) -> int:
        return self.line_map[line] if 0 < line < len(self.line_map) else line

    def restore(self, printed: str) -> str | None:
        """The migrated file: ``printed`` with each placeholder line replaced by the unit's text.
        None when a placeholder is missing, repeated or was changed by a pass."""
        out, seen = [], set()
        position = 0
        for match in _PLACEHOLDER_LINE.finditer(printed):
            name = match.group(1)
            unit = self.units.get(name)
            if unit is None or name in seen or match.group(0).rstrip("\r\n") != unit.placeholder:
                return None
            seen.add(name)
            newline = printed[match.end(2):match.end()]
            body = unit.text[:len(unit.text) - len(_trailing_newline(unit.text))]
            out.append(printed[position:match.start()])
            out.append(body + newline)
            position = match.end()
        if len(seen) != len(self.units):
            return None
        out.append(printed[position:])
        return "".join(out)

    def uses_name(self, name: str) -> bool:
        """Whether a cold unit reads or binds ``name`` (its words first: the ``ast`` walk is rarely needed)."""
        return any(name in unit.words for unit in self.units.values()) and name in self.names()

    def bound(self) -> set[str]:
        """The names the placeholders bind (what the left-out statements define)."""
        return {name for unit in self.units.values() for name in _placeholder_names(unit)}

    def names(self) -> set[str]:
        """Every name the cold units read or bind (from ``ast``; computed when first asked)."""
        if self._names is None:
            self._names = {node.id for unit in self.units.values() for statement in unit.statements
                           for node in ast.walk(statement) if isinstance(node, ast.Name)}
            self._names |= {name for unit in self.units.values() for name in _placeholder_names(unit)}
        return self._names


_PLACEHOLDER_LINE = re.compile(rf"^({PREFIX}\d+)\b([^\r\n]*)(\r\n|\r|\n|$)", re.M)


def _trailing_newline(text: str) -> str:
    for ending in ("\r\n", "\n", "\r"):
        if text.endswith(ending):
            return ending
    return ""


# Lines that may start a top-level statement: anything at the start of a line but blanks, comments and what closes
# brackets (``worth_eliding``: a line inside a string that looks like one only splits a stretch, which counts more
# text as cold, the side the estimate errs on).
_TOP_LINE = re.compile(r"^(?=[^\s#)\]}])", re.M)
_DECORATED = re.compile(r"@|(?:async\s+)?def\s|class\s")
_IMPORT_FROM = re.compile(r"from\s+(nvidia(?:\.\w+)*)\s+import\b(.*)", re.S)
_IMPORTED = re.compile(r"([\w.]+)(?:\s+as\s+(\w+))?")
_COMMENT = re.compile(r"#[^\r\n]*")
_DEFINITION = re.compile(r"(?:@[^\r\n]*(?:\r\n?|\n))*(?:async\s+def|def|class)\s")
_BINDING = re.compile(r"(?:@[^\r\n]*(?:\r\n?|\n))*(?:(?:async\s+def|def|class)\s+([^\W\d]\w*)|([^\W\d]\w*)\s*[:=]"
                      r"(?!=))")
# Elision pays for its own ``ast`` parse (about a tenth of a libcst round trip) once it leaves out a few hundredths
# of the file (a libcst parse and every walk over less text).
WORTH_ELIDING = 0.05


def _first_binding(text: str) -> set[str]:
    """The name a top-level stretch of text starts by binding: ``def f``, ``class C``, ``x =``, ``x: int =``."""
    found = _BINDING.match(text)
    return {found.group(1) or found.group(2)} if found else set()


def _dali_import_locals(text: str) -> set[str]:
    """The names a top-level ``import nvidia...`` or ``from nvidia... import ...`` statement binds (not the words of
    its module's path: ``pipeline`` of ``from nvidia.dali.pipeline import Pipeline`` is not a DALI name here)."""
    found = _IMPORT_FROM.match(text)
    if found is not None:
        names = _COMMENT.sub("", found.group(2)).replace("(", " ").replace(")", " ")
        return {alias or name for name, alias in _IMPORTED.findall(names)}
    if text.startswith("import"):
        return {alias or name.split(".")[0] for name, alias in _IMPORTED.findall(_COMMENT.sub("", text[len("import"):]))
                if name.startswith("nvidia")}
    return set()


def worth_eliding(source: str, dali_words: set[str], hot_together=()) -> bool:
    """Whether ``elide`` may leave out at least ``WORTH_ELIDING`` of the text, estimated from the text alone (no
    parse): the stretches between lines that start at column 0, a decorator with what it decorates, count as cold
    when they mention none of ``dali_words``, of the names the lines that import from ``nvidia`` bind, nor every
    word of one set of ``hot_together``, and import nothing. That is fewer hot words than ``elide`` finds (only the
    first name a stretch binds, no project pipelines), so the estimate errs on the side of eliding: it says no where
    ``elide`` would leave out less (tests/test_elision.py checks it over every golden source). Elision changes no
    output (``benchmarks/transparency.py``), so this decides the time only."""
    starts = [m.start() for m in _TOP_LINE.finditer(source)]
    if len(starts) < 2:
        return False  # (``elide`` needs two top-level statements)
    starts.append(len(source))
    hot = set(dali_words)
    stretches: list[str] = []
    decorated = False
    for begin, end in zip(starts, starts[1:]):
        text = source[begin:end]
        if decorated and _DECORATED.match(text):
            stretches[-1] += text
        else:
            stretches.append(text)
        decorated = text.startswith("@")
        if text.startswith(("import", "from")) and "nvidia" in text:
            hot |= _dali_import_locals(text)
    # As ``elide`` decides: hot by ``cold_by_fixpoint`` (a stretch that imports is never left out), with the name a
    # stretch starts by binding (``def f``, ``class C``, ``x =``) for what it binds; then the defs and classes that hot
    # text names, and what those name in turn (``_without_named_definitions``).
    items = [(text, set(WORD.findall(text))) for text in stretches]
    cold = cold_by_fixpoint(items, lambda item: item[1], lambda item: _first_binding(item[0]), hot | {"import"},
                            hot_together)
    cold = _without_named_definitions(items, cold, lambda item: item[1],
                                      lambda item: _first_binding(item[0]) if _DEFINITION.match(item[0]) else ())
    return sum(len(text) for text, _ in cold) >= WORTH_ELIDING * len(source)


def elide(source: str, dali_words: set[str], project=None, hot_together=()) -> Elision | None:
    """Split ``source`` into hot and cold top-level statements; None when nothing is cold or the
    split is not safe to make (then the whole file is parsed, as before). ``hot_together``: sets of words that
    make a statement hot when it mentions all the words of one (``cold_by_fixpoint``)."""
    if PREFIX in source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None  # the whole-file path reports it, with libcst's and Python's words
    if len(tree.body) < 2:
        return None
    starts = line_starts(source)  # offset of each line, 0-based
    units = _units(tree.body)
    for unit in units:
        begin = starts[unit.first - 1]
        end = starts[unit.last] if unit.last < len(starts) else len(source)
        if source[begin:begin + 1] in (" ", "\t", "\f", "\\"):
            return None  # a top-level statement must start its line
        unit.text = source[begin:end]
        unit.words = set(WORD.findall(unit.text))

    hot_words = set(dali_words)
    for unit in units:
        if "import" in unit.words:
            names = _import_locals(unit.statements, project)
            if names is None:
                return None  # a star import from DALI or the project: any word could be one of its names
            hot_words |= names
    cold = cold_by_fixpoint(units, lambda unit: unit.words, _bound, hot_words, hot_together)
    cold = _without_named_definitions(units, cold)
    # Imports stay in the parsed text whatever they import (the import table and the imports pass
    # read them; they do not make the names of other modules hot), and so does the docstring.
    first = units[0].statements[0]
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str)
    cold = [unit for unit in cold if "import" not in unit.words and not (docstring and unit is units[0])]
    cold = _keeping_the_default_indent(units, cold, source, starts)
    if not cold:
        return None

    cold_ids = {id(unit) for unit in cold}
    pieces, line_map, elided = [], [0], {}
    line = 1  # next line of the source to copy
    for unit in units:
        if id(unit) not in cold_ids:
            continue
        pieces.append(source[starts[line - 1]:starts[unit.first - 1]])
        line_map.extend(range(line, unit.first))
        name = f"{PREFIX}{len(elided) + 1}"
        bound = sorted(_placeholder_names(unit))
        unit.placeholder = " = ".join([name, *bound, "..."])
        pieces.append(unit.placeholder + _trailing_newline(unit.text))
        line_map.append(unit.first)
        elided[name] = unit
        line = unit.last + 1
    pieces.append(source[starts[line - 1]:] if line - 1 < len(starts) else "")
    line_map.extend(range(line, len(starts) + 1))
    text = "".join(pieces)
    if _first_newline(text) != _first_newline(source):
        return None  # (mixed line endings in a first unit left out: libcst's default newline is the file's first)
    return Elision(text=text, units=elided, line_map=line_map)


def cold_by_fixpoint(items: list, words_of, bound_of, hot_words: set[str], hot_together=()) -> list:
    """The items (top-level statements) that stay cold: an item that mentions a hot word, or every word of one of
    the sets in ``hot_together`` (words too common to count alone), is hot, and the names it binds (``bound_of``)
    become hot words, until nothing changes. Order is kept.
    Shared by elision (before libcst parses) and ``transforms.base.cold_statements`` (after).
    Elision then parses the definitions hot code names too (``_without_named_definitions``); a cold statement
    that hot code still hands a DALI value to (through a name bound by an assignment, say) is found later, by
    the flow model, and the file is then migrated whole (``context.NeedsWholeFile``)."""
    hot_words = set(hot_words)
    cold = list(items)
    changed = True
    while changed:
        changed = False
        still_cold = []
        for item in cold:
            words = words_of(item)
            if words & hot_words or any(together <= words for together in hot_together):
                hot_words |= bound_of(item)  # seen by the items after it in this same sweep
                changed = True
            else:
                still_cold.append(item)
        cold = still_cold
    return cold


def _without_named_definitions(units: list, cold: list, words_of=lambda unit: unit.words,
                                defines=lambda unit: _definition_names(unit.statements)) -> list:
    """``cold`` less the functions and classes that hot code names, and those that they name in turn
    (``words_of(unit)``: the words of its text; ``defines(unit)``: the names of the defs and classes it holds).

    Hot code calls them (``check_results(pipe)``) or hands them on (``MyPipeline(lookup_func)``, whose graph calls
    its parameter): the flow model and the units must read them, or the first attempt would find a DALI value
    handed to a placeholder (``context.NeedsWholeFile``) and the file be migrated again whole, or, where nothing
    tells it, miss what their code does with the value. A name is a word of the text (a superset: attributes,
    keywords, strings, comments too); the names a parsed definition binds do not make other statements hot."""
    defined: dict[str, list] = {}  # a name -> the cold units with a def or class of that name
    for unit in cold:
        for name in defines(unit):
            defined.setdefault(name, []).append(unit)
    if not defined:
        return cold
    cold_ids = {id(unit) for unit in cold}
    naming = [unit for unit in units if id(unit) not in cold_ids]
    parsed: set[int] = set()
    while naming and defined:
        for name in words_of(naming.pop()) & defined.keys():
            for unit in defined.pop(name):
                if id(unit) not in parsed:
                    parsed.add(id(unit))
                    naming.append(unit)
    return [unit for unit in cold if id(unit) not in parsed] if parsed else cold


def _definition_names(statements: list[ast.stmt]) -> list[str]:
    return [s.name for s in statements if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


_NEWLINE = re.compile(r"\r\n?|\n")  # (as libcst finds a module's default newline)


def _first_newline(text: str) -> str:
    found = _NEWLINE.search(text)
    return found.group(0) if found else ""


_LIBCST_FALLBACK_INDENT = "    "  # (a module without an indented block)


def _keeping_the_default_indent(units: list[Unit], cold: list[Unit], source: str, starts: list[int]) -> list[Unit]:
    """``cold`` less the unit that holds the file's first indented block, where leaving it out would give the parsed
    text another first indentation: libcst takes the module's default indentation from it, and the passes write
    their new blocks with it (a left-out class indented by two before pipelines indented by four)."""
    cold_ids = {id(unit) for unit in cold}
    first = whole = None  # the unit with the file's first indented block, and its indentation
    for unit in units:
        indent = _block_indent(unit, source, starts)
        if indent is None:
            continue
        if first is None:
            if id(unit) not in cold_ids:
                return cold  # it stays: the parsed text has the same first indented block
            first, whole = unit, indent
        elif id(unit) not in cold_ids:
            parsed = indent  # the parsed text's first indented block
            break
    else:
        parsed = _LIBCST_FALLBACK_INDENT  # the parsed text has none
    if first is None or parsed == whole:
        return cold
    return [unit for unit in cold if unit is not first]


def _block_indent(unit: Unit, source: str, starts: list[int]) -> str | None:
    """The indentation of the unit's first indented block (libcst's first INDENT token if the unit is the first to
    have one); None when it has none."""
    for statement in unit.statements:
        found = _indent_in(statement, source, starts)
        if found is not None:
            return found
    return None


def _indent_in(statement: ast.stmt, source: str, starts: list[int]) -> str | None:
    """The indentation of a top-level statement's first block whose first statement starts a line of its own
    (``if x: y`` has none), the blocks in the order of the text."""
    if isinstance(statement, ast.Match):
        line = statement.cases[0].pattern.lineno  # (a case is always on an indented line of its own)
        text = source[starts[line - 1]:starts[line] if line < len(starts) else len(source)]
        return text[:len(text) - len(text.lstrip(" \t\f"))]
    orelse = getattr(statement, "orelse", None)
    for block in (getattr(statement, "body", None), *(handler.body for handler in getattr(statement, "handlers", ())),
                  orelse, getattr(statement, "finalbody", None)):
        if not block:
            continue
        if block is orelse and isinstance(block[0], ast.If) and block[0].col_offset == 0:  # an elif: its own blocks
            found = _indent_in(block[0], source, starts)
        else:
            found = _line_indent(block[0], source, starts)
        if found is not None:
            return found
    return None


def _line_indent(node, source: str, starts: list[int]) -> str | None:
    """The blanks before ``node`` (its first decorator) where only blanks stand before it on its line and the line
    before does not go on into it with a backslash; else None."""
    first = min([node, *getattr(node, "decorator_list", ())], key=lambda n: (n.lineno, n.col_offset))
    begin = starts[first.lineno - 1]
    before = source[begin:begin + first.col_offset]  # (col_offset counts UTF-8 bytes: blanks are one byte each)
    if first is not node:  # a decorator: its expression, after the @
        before = before.rstrip(" \t\f").removesuffix("@")
    if not before or before.strip(" \t\f"):
        return None
    previous = source[starts[first.lineno - 2]:begin] if first.lineno > 1 else ""
    return None if previous.rstrip("\r\n").endswith("\\") else before


def _units(body: list[ast.stmt]) -> list[Unit]:
    """Top-level statements grouped by lines: statements sharing a line (``a = 1; b = 2``) are one."""
    units: list[Unit] = []
    for statement in body:
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
        last = statement.end_lineno or statement.lineno
        if units and first <= units[-1].last:
            units[-1].last = max(units[-1].last, last)
            units[-1].statements.append(statement)
        else:
            units.append(Unit(first=first, last=last, statements=[statement]))
    return units


def _import_locals(statements: list[ast.stmt], project) -> set[str] | None:
    """Names the imports in ``statements`` (at any depth) bind to DALI or to a project pipeline."""
    names = set()
    project_words = set()
    if project:
        project_words = {p.name for p in project.pipelines.values()} | {p.module for p in project.pipelines.values()}
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    if alias.name == "nvidia" or alias.name.startswith("nvidia.") \
                            or alias.name in project_words or local in project_words:
                        names.add(local)
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                dali = node.level == 0 and (module == "nvidia" or module.startswith("nvidia."))
                ours = bool(project_words) and (module in project_words or module.split(".")[-1] in project_words
                                                or any(a.name in project_words for a in node.names))
                if any(alias.name == "*" for alias in node.names) and (dali or project_words):
                    return None
                if dali or ours:
                    names |= {alias.asname or alias.name for alias in node.names}
    return names


def _bound(unit: Unit) -> set[str]:
    """Names a unit binds at module level (a superset)."""
    if unit.bound is None:
        if unit.words & _REBINDING_WORDS or ":=" in unit.text:
            unit.bound = set(unit.words)
        else:
            unit.bound = set()
            for statement in unit.statements:
                _bindings(statement, unit.bound)
    return unit.bound


def _placeholder_names(unit: Unit) -> set[str]:
    """The module names a cold unit may bind, for its placeholder to bind: what ``_bindings`` finds,
    plus ``:=`` targets, names declared ``global`` and ``match`` captures anywhere in it. Not the
    word superset ``_bound`` uses for heat: binding ``len`` or ``print`` in the placeholder would
    tell the data flow they are not the builtins."""
    names: set[str] = set()
    # Those three need ``:=``, ``global`` or ``match`` in the text: without them, skip the deep walk.
    deep = bool(unit.words & _REBINDING_WORDS) or ":=" in unit.text
    for statement in unit.statements:
        _bindings(statement, names)
        if not deep:
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.Global):
                names.update(node.names)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                names.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                names.add(node.rest)
    return names


def _bindings(statement: ast.stmt, names: set[str]) -> None:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(statement.name)
        return
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        for alias in statement.names:
            names.add(alias.asname or alias.name.split(".")[0])
        return
    targets = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [statement.target]
    elif isinstance(statement, ast.Delete):
        targets = statement.targets
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in statement.items if item.optional_vars is not None]
    for target in targets:
        names |= {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}
    for field_name in ("body", "orelse", "finalbody"):
        for child in getattr(statement, field_name, ()):
            _bindings(child, names)
    for case in getattr(statement, "cases", ()):  # match
        for child in case.body:
            _bindings(child, names)
    for handler in getattr(statement, "handlers", ()):
        if handler.name:
            names.add(handler.name)
        for child in handler.body:
            _bindings(child, names)


class ModuleSymbols:
    """Module-level ``def``s, ``class``es and ``name = <value>`` assignments by name (the last binding wins), as
    ``unroll.module_symbols`` finds them, with the definitions in elided statements parsed only when
    asked for."""

    def __init__(self):
        self._found: dict[str, object] = {}  # name -> node, or (unit, name) still to parse
        self._functions: set[str] = set()
        self._parsed: dict[int, dict[str, cst.CSTNode]] = {}

    def add(self, name: str, node: cst.CSTNode) -> None:
        self._found[name] = node
        self._functions.discard(name)
        if isinstance(node, cst.FunctionDef):
            self._functions.add(name)

    def add_statement(self, statement: cst.CSTNode) -> None:
        """What a parsed top-level statement defines: a ``def``, or ``name = value`` assignments."""
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            self.add(statement.name.value, statement)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                        and isinstance(small.targets[0].target, cst.Name):
                    self.add(small.targets[0].target.value, small.value)

    def add_elided(self, unit: Unit) -> None:
        for statement in unit.statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._found[statement.name] = unit
                self._functions.add(statement.name)
            elif isinstance(statement, ast.ClassDef):
                self._found[statement.name] = unit
                self._functions.discard(statement.name)
            elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name):
                self._found[statement.targets[0].id] = unit
                self._functions.discard(statement.targets[0].id)

    def get(self, name: str, default=None):
        found = self._found.get(name, default)
        if isinstance(found, Unit):
            parsed = self._parsed.get(id(found))
            if parsed is None:
                symbols = ModuleSymbols()
                try:
                    body = parse_module(found.text).body
                except (cst.ParserSyntaxError, RecursionError):
                    body = ()  # libcst cannot read it: what it defines stays unknown, as for any name
                for statement in body:
                    symbols.add_statement(statement)
                parsed = self._parsed[id(found)] = symbols._found
            found = self._found[name] = parsed.get(name, default)
        return found

    def functions(self) -> set[str]:
        """Names bound to a ``def``."""
        return set(self._functions)

    def __iter__(self):
        return iter(self._found)

    def __contains__(self, name) -> bool:
        return name in self._found

    def __len__(self) -> int:
        return len(self._found)

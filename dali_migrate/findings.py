"""Rules and findings.

Every rule is declared once, in the module of the pass or lint check that reports it, with its
documentation (what it does, why, a before/after example and whether the fix is safe).
``docs/rules.md`` is generated from this registry (``python -m dali_migrate.rules_doc``).
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "info")
FIX_SAFETY = ("safe", "unsafe", "manual")

# The marker every spot left for a person carries (the marker contract in DESIGN.md).
MARKER_PREFIX = "# dali-migrate:"


@dataclass(frozen=True)
class Rule:
    id: str  # "DM101"
    name: str  # "fn-to-ndd"
    severity: str
    summary: str  # one line: what the rule finds or does
    why: str  # what dynamic mode requires
    before: str = ""
    after: str = ""
    fix: str = "safe"  # safe | unsafe | manual
    suggestion: str = ""  # for manual rules: what a person should do

    def __post_init__(self):
        assert self.severity in SEVERITIES, self.severity
        assert self.fix in FIX_SAFETY, self.fix


RULES: dict[str, Rule] = {}


def rule(id: str, name: str, severity: str, summary: str, why: str, **kw) -> Rule:
    """Declare a rule; rule IDs are unique and stable."""
    r = Rule(id, name, severity, summary, why, **kw)
    if id in RULES and RULES[id] != r:
        # Declared once, documented once: a second, different declaration is a bug (a later one would
        # silently replace the docs of the first).
        raise ValueError(f"rule id {id} declared twice, differently ({RULES[id].name}, {name})")
    RULES[id] = r
    return r


@dataclass
class Finding:
    """One thing a command found. Positions are 1-based, lines and columns alike (as ruff and SARIF
    count them); ``end_line``/``end_column`` is where the finding ends, the column just past its last
    character. A finding about the whole file (an added import, a file that does not parse) has
    ``file_level`` set and points at line 1, column 1: never at line 0."""

    rule: str
    message: str
    path: str = "<string>"
    line: int = 1
    column: int = 1
    fixed: bool = True  # False: a person must act (the code carries a marker)
    severity: str = ""
    cell: int | None = None  # notebook cell number (1-based), when the source is a notebook
    extra: dict = field(default_factory=dict)
    end_line: int = 0  # 0: the same as ``line``
    end_column: int = 0  # 0: the same as ``column``
    file_level: bool = False

    def __post_init__(self):
        if not self.severity:
            r = RULES.get(self.rule)
            self.severity = r.severity if r else "warning"
        if self.line <= 0:  # "no line": the whole file, shown at its first line
            self.line, self.column, self.file_level = 1, 1, True
            self.end_line = self.end_column = 0
        self.column = max(self.column, 1)
        if self.end_line < self.line:
            self.end_line, self.end_column = self.line, self.column
        elif self.end_line == self.line:
            self.end_column = max(self.end_column, self.column)
        else:
            self.end_column = max(self.end_column, 1)

    def to_dict(self) -> dict:
        d = {"rule": self.rule, "message": self.message, "path": self.path}
        if self.cell is not None:
            d["cell"] = self.cell
        d.update(line=self.line, column=self.column, end_line=self.end_line, end_column=self.end_column)
        if self.file_level:
            d["file_level"] = True
        d.update(fixed=self.fixed, severity=self.severity)
        if self.extra:
            d["extra"] = deepcopy(self.extra)
        return d

    @property
    def where(self) -> str:
        """``path:line:column``, with the cell of a notebook (``nb.ipynb:cell[3]:2:5``)."""
        path = self.path if self.cell is None else f"{self.path}:cell[{self.cell}]"
        return f"{path}:{self.line}:{self.column}"

    def format(self) -> str:
        state = "fixed" if self.fixed else "manual"
        return f"{self.where}: {self.rule} [{state}] {self.message}"

    @property
    def suggestion(self) -> str:
        """What a person should do next: this finding's own step where its rule has several cases
        (``extra["suggestion"]``), else the rule's."""
        own = self.extra.get("suggestion")
        if own:
            return own
        r = RULES.get(self.rule)
        return r.suggestion if r else ""


def marker_text(rule_id: str, message: str) -> str:
    """The comment line for a finding: a message that quotes multi-line code is folded onto one line
    (a comment cannot hold a line break)."""
    return f"{MARKER_PREFIX} {rule_id} {' '.join(message.split())}"


# Modules that declare rules; importing them registers their rules.
RULE_MODULES = ("dali_migrate.engine", "dali_migrate.transforms", "dali_migrate.lint", "dali_migrate.harness",
                "dali_migrate.notebooks")


def all_rules() -> dict[str, Rule]:
    """Every rule, after importing every module that declares rules."""
    import importlib

    for name in RULE_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:  # a module that exists but fails to import is a bug: say so
                raise
    return dict(sorted(RULES.items()))

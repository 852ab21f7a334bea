"""Rules and findings.

Every rule is declared once, in the module of the pass or lint check that reports it, with its
documentation (what it does, why, a before/after example and whether the fix is safe).
``docs/rules.md`` is generated from this registry (``python -m dali_migrate.rules_doc``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

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
    rule: str
    message: str
    path: str = "<string>"
    line: int = 0  # 1-based line in the original source (0 = whole file)
    column: int = 0  # 0-based column
    fixed: bool = True  # False: a person must act (the code carries a marker)
    severity: str = ""
    cell: int | None = None  # notebook cell index, when the source is a notebook
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.severity:
            r = RULES.get(self.rule)
            self.severity = r.severity if r else "warning"

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["cell"] is None:
            del d["cell"]
        if not d["extra"]:
            del d["extra"]
        return d

    def format(self) -> str:
        state = "fixed" if self.fixed else "manual"
        where = self.path if self.cell is None else f"{self.path}:cell[{self.cell}]"  # notebooks
        return f"{where}:{self.line}:{self.column + 1}: {self.rule} [{state}] {self.message}"


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

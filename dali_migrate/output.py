"""Output formats shared by ``migrate`` and ``lint`` (``--output-format``), modelled on ruff's.

* ``text``: ``path:line:col: DMnnn message`` per finding (the default).
* ``json``: the command's machine-readable result (each command builds its own payload).
* ``sarif``: a SARIF 2.1.0 log for GitHub code scanning and editors: one run, the rules that
  findings name with their documentation from the registry, one result per finding.
* ``github``: GitHub Actions workflow commands (``::warning file=…,line=…,col=…::message``), which
  show as annotations on the pull request.

Positions are 1-based lines and columns; a finding's end column is the one just past it, as SARIF's
``endColumn``. A file-level finding points at line 1, column 1 (``properties.fileLevel`` in SARIF).
Notebook findings count lines within their cell; the cell is in the message and in
``properties.cell``.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import __version__
from .findings import Finding, Rule, all_rules

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
RULES_DOC = "docs/rules.md"
_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
_GITHUB_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def add_format_arguments(parser) -> None:
    """``--output-format`` and its ``--json`` shorthand."""
    parser.add_argument("--output-format", choices=FORMATS, default="text", dest="output_format",
                        help="text (default), json, sarif (SARIF 2.1.0, for GitHub code scanning) or github "
                             "(workflow-command annotations)")
    parser.add_argument("--json", action="store_const", const="json", dest="output_format",
                        help="the same as --output-format json")


def plural(count: int, word: str) -> str:
    """``1 file``, ``2 files``; ``1 error``, ``0 errors``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _in_cell(finding: Finding) -> str:
    return f"cell[{finding.cell}]: " if finding.cell is not None else ""


# -- SARIF ------------------------------------------------------------------------------------------
def docs_base() -> str | None:
    """The absolute URL of ``docs/rules.md`` when the installed distribution names one (``[project.urls]``
    ``Rules`` or ``Documentation``); SARIF's ``helpUri`` must be absolute, so without one it is left out."""
    try:
        from importlib.metadata import PackageNotFoundError, metadata
    except ImportError:  # pragma: no cover
        return None
    try:
        urls = metadata("dali-migrate").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    found = dict(u.split(", ", 1) for u in urls if ", " in u)
    base = found.get("Rules") or found.get("Documentation")
    return base if base and base.startswith(("https://", "http://")) else None


def _rule_descriptor(rule_id: str, rule: Rule | None, base: str | None) -> dict:
    if rule is None:  # a marker a person wrote with an ID the registry does not know
        return {"id": rule_id, "shortDescription": {"text": f"{rule_id} (not a dali-migrate rule)"}}
    from .rules_doc import anchor, render_rule

    where = f"{RULES_DOC}#{anchor(rule)}"
    descriptor = {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.why},
        "help": {"text": " ".join(filter(None, [rule.summary, rule.why, rule.suggestion, f"See {where}."])),
                 "markdown": "\n".join(render_rule(rule)[2:]) + f"\nSee `{where}` in dali-migrate."},
        "defaultConfiguration": {"level": _SARIF_LEVELS.get(rule.severity, "warning")},
        "properties": {"fix": rule.fix, "documentation": where},
    }
    if base:
        descriptor["helpUri"] = f"{base}#{anchor(rule)}"
    return descriptor


def _artifact(path: str) -> dict:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": Path(path).as_posix(), "uriBaseId": "%SRCROOT%"}


def _sarif_result(finding: Finding, index: int) -> dict:
    region = {"startLine": finding.line, "startColumn": finding.column,
              "endLine": finding.end_line, "endColumn": finding.end_column}
    properties = {"fixed": finding.fixed}
    if finding.file_level:
        properties["fileLevel"] = True
    if finding.cell is not None:
        properties["cell"] = finding.cell
    if finding.extra:
        properties.update({k: v for k, v in finding.extra.items() if k not in properties})
    return {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "level": _SARIF_LEVELS.get(finding.severity, "warning"),
        "message": {"text": _in_cell(finding) + finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(finding.path), "region": region}}],
        "properties": properties,
    }


def sarif_log(findings: list[Finding], exit_code: int) -> dict:
    """A SARIF 2.1.0 log of ``findings``: the rules they name (from the registry), one result each."""
    registry = all_rules()
    base = docs_base()
    rule_ids = sorted({f.rule for f in findings})
    index = {rule_id: i for i, rule_id in enumerate(rule_ids)}
    driver = {"name": "dali-migrate", "version": __version__, "semanticVersion": __version__,
              "rules": [_rule_descriptor(r, registry.get(r), base) for r in rule_ids]}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the folder dali-migrate ran in"}}},
            "invocations": [{"executionSuccessful": exit_code != 2, "exitCode": exit_code}],
            "results": [_sarif_result(f, index[f.rule]) for f in findings],
        }],
    }


# -- GitHub Actions annotations ---------------------------------------------------------------------
def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(finding: Finding) -> str:
    """``::warning file=…,line=…,endLine=…,col=…,endColumn=…,title=…::message`` for one finding."""
    level = _GITHUB_LEVELS.get(finding.severity, "warning")
    properties = {"file": Path(finding.path).as_posix(), "line": finding.line, "endLine": finding.end_line,
                  "col": finding.column, "endColumn": finding.end_column, "title": f"dali-migrate {finding.rule}"}
    spelled = ",".join(f"{key}={_escape_property(str(value))}" for key, value in properties.items())
    return f"::{level} {spelled}::{_escape_data(f'{finding.where}: {finding.rule} {finding.message}')}"


def github_annotations(findings: list[Finding]) -> str:
    return "".join(github_annotation(f) + "\n" for f in findings)

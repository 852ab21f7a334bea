"""The MCP tools that read and rewrite code: migrate, lint, review and explain."""

from __future__ import annotations

from pathlib import Path


from ..api import migrate_file
from ..engine import migrate_source
from ..files import ORIGINALS_DIR, atomic_write, keep_original
from .models import (LintCodeResult, LintCounts, LintPathsResult, LintedFile, MigrateCodeResult, MigratePathsResult,
                     MigratedFile, PathCounts, ReviewMarker, ReviewResult, ReviewedFile, RuleDoc, ToolFailure)
from .workspace import (TOO_BIG, Workspace, check_size, finding_out, findings_out, is_notebook, manual_lines,
                        notebook_pipelines, pipelines_by_file, project_for, refuse_error, too_big, too_big_result,
                        finding_place)


# -- migrate -----------------------------------------------------------------------------------

def migrate_code(source: str, filename: str = "snippet.py", detail: str = "summary") -> tuple[MigrateCodeResult, str]:
    from ..notebooks import migrate_notebook

    check_size(source)
    result = migrate_notebook(source, filename) if is_notebook(filename) else migrate_source(source, filename)
    refuse_error(result, filename)
    findings, rewrites = findings_out(result.findings, detail)
    out = MigrateCodeResult(status=result.status, changed=result.changed, findings=findings, rewrites=rewrites,
                            migrated=result.migrated if result.changed else None,
                            diff=result.diff() if detail == "full" and result.changed else None)
    manual = [f for f in result.findings if not f.fixed]
    text = f"{filename}: {result.status}" + (f", {len(manual)} spot(s) for a person" if manual else "")
    text += "; the migrated code is in `migrated`" if result.changed else ""
    return out, "\n".join([text, *manual_lines(filename, result.findings)])


def migrate_workspace_paths(workspace: Workspace, paths: list[str], write: bool = False,
                            detail: str = "summary") -> tuple[MigratePathsResult, str]:
    from ..api import RunResult

    if write:
        workspace.refuse_state_writes(paths)
    files = workspace.source_files(paths)
    project = project_for(files)
    pipelines = pipelines_by_file(workspace, project)
    run = RunResult()
    listed: list[MigratedFile] = []
    from ..api import share_helpers

    results = [too_big_result(workspace.relative(path)) if too_big(path)
               else migrate_file(path, display=workspace.relative(path), project=project or None) for path in files]
    # The project's helper module (EpochIterator, ReaderStream, Prefetch), as `dali-migrate migrate` makes it: created, if
    # two or more modules need it, beside them.
    made = share_helpers(results, [str(workspace.root)], project or None, base=workspace.root)
    for path, result in [*zip(files, results), *((workspace.root / r.path, r) for r in made)]:
        rel = workspace.relative(path)
        written, kept = False, None
        if write and result.changed and result.created and path.exists():
            result.error = f"cannot write the helper module {rel}: a file appeared there during the run"
        elif write and result.changed:
            try:
                if not result.created:  # a created file has no original to keep
                    kept = workspace.relative(keep_original(workspace.root, rel, result.original))
                atomic_write(path, result.migrated)
                written = True
                run.written.append(rel)
            except OSError as e:
                result.error = f"cannot write: {e.strerror or e}"
        run.files.append(result)
        if result.uses_dali or result.error:
            findings, rewrites = findings_out(result.findings, detail)
            listed.append(MigratedFile(
                path=rel, status=result.status, changed=result.changed, written=written if write else None,
                original_kept=kept, error=result.error, rewrites=rewrites,
                pipelines=notebook_pipelines(result.original, rel) if is_notebook(rel) else pipelines.get(rel),
                findings=findings, diff=result.diff() if detail == "full" and result.changed else None))
    summary = run.summary()
    counts = PathCounts(files=summary["files"], dali=len(listed), changed=summary["changed"],
                        written=summary["written"], manual=summary["manual_findings"], errors=summary["errors"])
    out = MigratePathsResult(write=write, exit_code=run.exit_code(wrote=write), counts=counts, files=listed,
                             next_step=_next_after_migrate(listed, write))
    return out, _migrate_text(out, run)


def _next_after_migrate(files: list[MigratedFile], write: bool) -> str:
    if any(f.error for f in files):
        return "Files with an error were left untouched: fix what `error` says (or leave them out) and run again."
    changed = [f for f in files if f.changed]
    if not write and changed:
        pipelines = [f"{f.path} {p.split('(')[0]}" for f in changed for p in f.pipelines or []]
        target = ("verify each pipeline (original=<file> pipeline=<name>, with the args/kwargs it takes): "
                  + (", ".join(pipelines[:5]) + (", ..." if len(pipelines) > 5 else "") if pipelines else
                     "name one the changed files define"))
        return f"{target}; then migrate_paths write=true; then lint_paths and review."
    if write and any(f.written for f in files):
        return ("lint_paths on the written files; review; verify again (it now compares the kept original with "
                "the written file). Markers (`# dali-migrate: DMnnn`) stay open until a person resolves them.")
    if any(f.findings and not all(x.fixed for x in f.findings) for f in files):
        return "Nothing left to rewrite; the markers need a person (explain_rule DMnnn says why)."
    return "Nothing to migrate here."


def _migrate_text(out: MigratePathsResult, run) -> str:
    c = out.counts
    head = "written" if out.write else "dry run (nothing written)"
    lines = [f"{head}: {c.files} files, {c.dali} with DALI; {c.changed} changed"
             + (f", {c.written} written (originals kept in {ORIGINALS_DIR}/)" if out.write else "")
             + (f", {c.manual} spot(s) for a person" if c.manual else "")
             + (f", {c.errors} error(s)" if c.errors else "") + f"; exit {out.exit_code}"]
    by_path = {r.path: r for r in run.files}
    for f in out.files:
        lines.append(f"  {f.path}: {f.status}" + (f" - {f.error}" if f.error else "")
                     + (f"; pipelines {', '.join(f.pipelines)}" if f.pipelines else ""))
        lines += manual_lines(f.path, by_path[f.path].findings)
    lines.append(f"Next: {out.next_step}")
    return "\n".join(lines)


# -- lint --------------------------------------------------------------------------------------

def lint_code(source: str, filename: str = "snippet.py", fix: bool = False,
              unsafe_fixes: bool = False) -> tuple[LintCodeResult, str]:
    from ..lint import lint_source

    check_size(source)
    result = lint_source(source, filename, fix=fix, unsafe_fixes=unsafe_fixes)
    refuse_error(result, filename)
    out = LintCodeResult(findings=[finding_out(f) for f in result.findings],
                         fixed=[finding_out(f) for f in result.fixed],
                         fixed_source=result.fixed_source if result.changed else None)
    text = f"{filename}: {len(result.findings)} finding(s)" + (f", {len(result.fixed)} fixed (see fixed_source)"
                                                               if result.fixed else "")
    return out, "\n".join([text, *(f"  {finding_place(f)}: {f.rule} {f.message}" for f in result.findings[:10])])


def lint_workspace_paths(workspace: Workspace, paths: list[str], fix: bool = False, unsafe_fixes: bool = False,
                         detail: str = "summary") -> tuple[LintPathsResult, str]:
    """Through the lint API (``lint.lint_paths``), which reads notebooks as their joined code cells."""
    from ..lint import LintResult, LintRun, lint_paths

    if fix:
        workspace.refuse_state_writes(paths)
    files = workspace.source_files(paths)
    small = [f for f in files if not too_big(f)]
    by_path: dict[Path, LintResult] = {}
    done = lint_paths(small, fix=fix, unsafe_fixes=unsafe_fixes)
    written = {Path(name).resolve() for name in done.written}
    for result in done.files:
        by_path[Path(result.path).resolve()] = result
    run = LintRun()
    listed = []
    for path in files:
        rel = workspace.relative(path)
        result = by_path.get(path) or LintResult(rel, "", error=TOO_BIG)
        result.path = rel
        for f in [*result.findings, *result.fixed]:
            f.path = rel
        run.files.append(result)
        if result.findings or result.fixed or result.error:
            listed.append(LintedFile(path=rel, error=result.error, written=(path in written) if fix else None,
                                     findings=[finding_out(f) for f in result.findings],
                                     fixed=[finding_out(f) for f in result.fixed],
                                     diff=_fix_diff(result, rel) if detail == "full" and result.changed else None))
    counts = LintCounts(files=len(files), findings=len(run.findings), errors=len(run.errors),
                        fixed=sum(len(r.fixed) for r in run.files), written=len(written))
    if run.errors:
        next_step = "Files with an error were not linted: fix what `error` says and run again."
    elif run.findings:
        next_step = ("Fix the findings (explain_rule DMnnn says how; fix=true applies the safe fixes), lint again, "
                     "then review.")
    else:
        next_step = "Clean. review shows the migration hunk by hunk; verify compares original and migrated."
    out = LintPathsResult(fix=fix, exit_code=run.exit_code(), counts=counts, files=listed, next_step=next_step)
    lines = [f"lint: {counts.files} files, {counts.findings} finding(s)"
             + (f", {counts.fixed} fixed, {counts.written} written" if fix else "")
             + (f", {counts.errors} error(s)" if counts.errors else "") + f"; exit {out.exit_code}"]
    for f in listed:
        lines.append(f"  {f.path}" + (f": {f.error}" if f.error else ""))
        lines += [f"    {finding_place(x)}: {x.rule} {x.message}" for x in f.findings[:5]]
    lines.append(f"Next: {next_step}")
    return out, "\n".join(lines)


def _fix_diff(result, rel: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(result.source.splitlines(keepends=True),
                                        result.fixed_source.splitlines(keepends=True),
                                        fromfile=f"a/{rel}", tofile=f"b/{rel}"))


# -- review ------------------------------------------------------------------------------------

def review_workspace_paths(workspace: Workspace, paths: list[str], format: str = "markdown",
                           detail: str = "summary") -> tuple[ReviewResult, str]:
    """Review what the migration of these files does. A file written by migrate_paths is reviewed from
    its kept original (the migration as it was written)."""
    from ..review import build_review, to_html, to_markdown

    files = workspace.source_files(paths)
    kept_originals = {path: workspace.kept_original(path) for path in files}
    project = project_for(files, {path: kept for path, kept in kept_originals.items() if kept})
    results, sources = [], {}
    for path in files:
        rel = workspace.relative(path)
        kept = kept_originals[path]
        if too_big(path):
            results.append(too_big_result(rel))
            continue
        result = migrate_file(kept or path, display=rel, project=project or None)
        if kept is not None:
            note = None
            if path.read_text(encoding="utf-8", errors="replace") != result.migrated:
                note = ("the file changed after the write (lint fixes or edits); this review shows the migration "
                        "as written")
            sources[rel] = (workspace.relative(kept), note)
        results.append(result)
    review = build_review(results, scanned=len(files))
    listed = []
    for f in review.files:
        kept_rel, note = sources.get(f.path, (None, None))
        markers = [ReviewMarker(rule=m.finding.rule, line=m.finding.line, cell=m.finding.cell,
                                migrated_line=m.migrated_line, message=m.finding.message, suggestion=m.suggestion)
                   for m in f.markers]
        listed.append(ReviewedFile(path=f.path, status=f.status, error=f.error, reviewed_from=kept_rel, note=note,
                                   hunks=len(f.hunks), rules=sorted({r for h in f.hunks for r in h.rule_ids}),
                                   markers=markers))
    document = None
    if detail == "full":
        document = to_html(review) if format == "html" else to_markdown(review)
    out = ReviewResult(files=listed, rule_counts=review.rule_counts(), format=format, document=document)
    lines = [f"review: {len(listed)} file(s) with DALI, {sum(f.hunks for f in listed)} hunk(s), "
             f"{sum(len(f.markers) for f in listed)} marker(s) for a person"
             + ("" if document else "; detail=full gives the document")]
    for f in listed:
        lines.append(f"  {f.path}: {f.status}, rules {', '.join(f.rules) or '-'}"
                     + (f" (from {f.reviewed_from})" if f.reviewed_from else ""))
        lines += [f"    {finding_place(m)}: {m.rule} {m.message} -> {m.suggestion}" for m in f.markers[:5]]
    return out, "\n".join(lines)


# -- rules -------------------------------------------------------------------------------------

def explain(rule_id: str) -> tuple[RuleDoc, str]:
    from ..findings import all_rules

    rules = all_rules()
    rule = rules.get(rule_id.strip().upper())
    if rule is None:
        raise ToolFailure(f"unknown rule {rule_id!r}; pass one of the IDs findings carry: {', '.join(rules)}")
    doc = RuleDoc(id=rule.id, name=rule.name, severity=rule.severity, summary=rule.summary, why=rule.why,
                  before=rule.before, after=rule.after, fix=rule.fix, suggestion=rule.suggestion)
    return doc, f"{rule.id} {rule.name} ({rule.severity}, fix {rule.fix}): {rule.summary}"



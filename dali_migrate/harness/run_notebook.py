"""Run a notebook as a program: ``python -m dali_migrate.harness.run_notebook NB.ipynb [args...]``.

What ``verify --run`` uses to run a notebook in the original and the migrated copy alike, without
Jupyter. The code cells run in order, in one namespace (``__name__ == "__main__"``), with
``sys.argv = [NB.ipynb, *args]``, and what a notebook would show as a cell's result (its last
expression, when it is not None and the line does not end with ``;``) is printed as its ``repr``,
so that it can be compared. IPython syntax that is not Python is not run:

* line magics and shell escapes (``%matplotlib inline``, ``!pip install x``, ``files = !ls``) are
  skipped, except ``%time STMT``, whose statement runs (once);
* cells that start with a cell magic are skipped, except ``%%time`` (the body runs) and
  ``%%capture`` (the body runs with its stdout swallowed, as the magic does).

matplotlib is forced to the Agg backend before the first cell, so ``plt.show()`` draws nothing.
An exception stops the run with a traceback that names the cell (``NB.ipynb:cell[3]``, counting
every cell from 1, markdown included) and exit status 1. Harness code: migrated code never imports it.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import linecache
import os
import re
import sys
import traceback

_ASSIGNED_SHELL = re.compile(r"^\s*[\w.,\s\[\]()*]+=\s*[!%]")  # files = !ls, x = %env HOME
_TIME_MAGIC = re.compile(r"^(\s*)%time\s+(\S.*)$")
RUN_CELL_MAGICS = ("%%time", "%%capture")


def code_cells(text: str) -> list[tuple[int, str]]:
    """(1-based cell number, source) of each code cell of a notebook's JSON text."""
    data = json.loads(text)
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook: no list of cells")
    found = []
    for number, cell in enumerate(cells, start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            found.append((number, "".join(source) if isinstance(source, list) else str(source)))
    return found


def is_magic_line(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(("%", "!")) or bool(_ASSIGNED_SHELL.match(line))


def cell_magic(source: str) -> str | None:
    """The cell magic a cell starts with (``%%time``), or None."""
    first = source.lstrip("\n").split("\n", 1)[0].strip()
    return first.split()[0] if first.startswith("%%") else None


def python_of_cell(source: str) -> str:
    """The cell's Python: magic lines become ``pass`` (same indentation, so blocks stay valid), except
    ``%time STMT``, which becomes STMT; a ``%%time``/``%%capture`` header line is dropped."""
    lines = source.split("\n")
    if cell_magic(source) in RUN_CELL_MAGICS:
        while lines and not lines[0].strip():
            lines.pop(0)
        lines = [""] + lines[1:]  # keep line numbers: the header becomes an empty line
    out = []
    for line in lines:
        timed = _TIME_MAGIC.match(line)
        if timed:
            out.append(timed.group(1) + timed.group(2))
        elif is_magic_line(line):
            out.append(line[: len(line) - len(line.lstrip())] + "pass")
        else:
            out.append(line)
    return "\n".join(out)


def _display(value) -> None:
    """What Jupyter's display hook shows for a cell's last expression, as text."""
    if value is not None:
        print(repr(value))


def run_cell(source: str, filename: str, namespace: dict) -> None:
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # for tracebacks
    tree = ast.parse(source, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not _ends_with_semicolon(source):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        _display(eval(compile(last, filename, "eval"), namespace))


def _ends_with_semicolon(source: str) -> bool:
    code = [line.split("#", 1)[0].rstrip() for line in source.rstrip().split("\n")]
    return bool(code) and code[-1].endswith(";")


def _force_agg() -> None:
    os.environ["MPLBACKEND"] = "Agg"
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg", force=True)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    path = argv[0]
    try:
        with open(path, encoding="utf-8") as f:
            cells = code_cells(f.read())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print(f"run_notebook: {path}: cannot read the notebook: {e}", file=sys.stderr)
        return 2
    _force_agg()
    sys.argv = [path, *argv[1:]]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    namespace = {"__name__": "__main__", "__file__": os.path.abspath(path), "__builtins__": __builtins__,
                 "display": _display}
    for number, source in cells:
        magic = cell_magic(source)
        if magic and magic not in RUN_CELL_MAGICS:
            continue
        filename = f"{path}:cell[{number}]"
        try:
            if magic == "%%capture":
                with contextlib.redirect_stdout(io.StringIO()):
                    run_cell(python_of_cell(source), filename, namespace)
            else:
                run_cell(python_of_cell(source), filename, namespace)
        except SystemExit as e:
            sys.stdout.flush()
            return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # noqa: BLE001 - the program's own error, reported as Python would
            sys.stdout.flush()
            traceback.print_exc()
            return 1
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

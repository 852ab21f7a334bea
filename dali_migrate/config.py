"""Project configuration: the ``[tool.dali-migrate]`` table of the nearest ``pyproject.toml``.

::

    [tool.dali-migrate]
    include = ["*.py", "*.ipynb"]          # which files a folder search takes (default shown)
    exclude = ["legacy/", "tests/data/**"]  # added to the built-in skips (.git, .venv, build, ...)
    jobs = 4                                # worker processes (default: all cores)
    respect-gitignore = true                # skip what git ignores (default true)
    verify-command = "python train.py --steps 3"   # the program `verify --run` (and the MCP server) runs
    verify-outputs = "out"                  # the folder it writes, compared between the two runs
    helper_module = "dali_dynamic_compat"   # the module holding the run-time helpers (also helper-module)

"Nearest" is the first ``pyproject.toml`` *with a ``[tool.dali-migrate]`` table*, searching from the
first path given on the command line upward (as ruff does), so a monorepo's sub-projects can differ
and a ``pyproject.toml`` without the table does not hide the one above it. Glob patterns use
.gitignore syntax and are matched against paths relative to the folder holding that
``pyproject.toml``. Command-line flags override the file. A malformed file or table is an error
(exit 2) that names the file and the key, never silently ignored.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

TABLE = "dali-migrate"
DEFAULT_INCLUDE = ("*.py", "*.ipynb")


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and what is wrong."""


@dataclass
class Config:
    include: list[str] = field(default_factory=lambda: list(DEFAULT_INCLUDE))
    exclude: list[str] = field(default_factory=list)
    jobs: int | None = None
    respect_gitignore: bool = True
    verify_command: str | None = None
    verify_outputs: str | None = None
    # The module the migration writes the run-time helpers into (EpochIterator, ReaderStream, Prefetch), dotted, relative to
    # the import root of the modules that use it (transforms/unroll/helpers.py).
    helper_module: str = "dali_dynamic_compat"
    path: Path | None = None  # the pyproject.toml it came from

    @property
    def root(self) -> Path:
        """Where glob patterns are anchored: the config's folder, else the current folder."""
        return self.path.parent if self.path is not None else Path.cwd()


_KEYS = {"include": list, "exclude": list, "jobs": int, "respect-gitignore": bool, "verify-command": str,
         "verify-outputs": str, "helper-module": str, "helper_module": str}


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has a ``[tool.dali-migrate]`` table."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate_dir in (folder, *folder.parents):
        candidate = candidate_dir / "pyproject.toml"
        if candidate.is_file():
            data = _read(candidate)
            if TABLE in data.get("tool", {}):
                return candidate
    return None


def _read(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from e
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from e


def load_config(path: Path) -> Config:
    """The configuration in ``path`` (a pyproject.toml); defaults where it says nothing."""
    table = _read(path).get("tool", {}).get(TABLE, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [tool.{TABLE}]: {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(_KEYS))})")
    config = Config(path=path)
    for key, kind in _KEYS.items():
        if key not in table:
            continue
        value = table[key]
        if kind is list:
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise ConfigError(f"{path}: [tool.{TABLE}] {key} must be a list of glob strings")
        elif kind is int:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{path}: [tool.{TABLE}] {key} must be a whole number >= 1")
        elif kind is str:
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{path}: [tool.{TABLE}] {key} must be a non-empty string")
            if key.startswith("helper") and not all(part.isidentifier() for part in value.split(".")):
                raise ConfigError(f"{path}: [tool.{TABLE}] {key} must be a dotted module name "
                                  f"(like dali_dynamic_compat or mypkg.dali_compat), not {value!r}")
        elif not isinstance(value, bool):
            raise ConfigError(f"{path}: [tool.{TABLE}] {key} must be true or false")
        setattr(config, key.replace("-", "_"), value)  # helper-module and helper_module: the same setting
    return config


def config_for(paths, explicit: str | Path | None = None) -> Config:
    """The configuration that applies to a run over ``paths``: ``explicit`` if given, else the nearest
    pyproject.toml with our table above the first path, else the defaults."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"{path}: no such configuration file")
        return load_config(path)
    first = Path(next(iter(paths), "."))
    found = find_pyproject(first if first.exists() else Path.cwd())
    return load_config(found) if found else Config()

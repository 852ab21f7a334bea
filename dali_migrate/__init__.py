"""dali-migrate: migrate NVIDIA DALI pipeline-mode code to dynamic mode, and prove it.

Public API (see README): ``migrate_source``, ``migrate_paths``, ``migrate_file``.
Migrated code never imports this package.
"""

__version__ = "0.1.0"

from .api import RunResult, migrate_file, migrate_paths  # noqa: E402
from .engine import MigrationResult, migrate_source  # noqa: E402
from .findings import Finding, Rule  # noqa: E402

__all__ = ["__version__", "migrate_source", "migrate_file", "migrate_paths", "MigrationResult", "RunResult",
           "Finding", "Rule"]

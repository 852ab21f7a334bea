"""The differential harness: run a pipeline-mode pipeline and its dynamic-mode migration side by side.

``verify(original, name, migrated=None, ...)`` returns a ``VerifyReport`` (per-output, per-sample
agreement, skipped outputs with reasons, device mappings, optional throughput);
``verify_program(root, command, ...)`` runs a whole program in a copy of its project and in a migrated
copy and returns a ``ProgramReport`` (``programs.py``). The CLI is
``dali-migrate verify`` (``dali_migrate/cli_verify.py``). Importing this package does not import DALI;
running it needs ``nvidia-dali`` (the ``verify`` extra).
"""

from .compare import Tolerance
from .loading import HarnessError, parse_call_args
from .programs import ProgramReport, verify_configured_program, verify_program
from .runner import OutputResult, VerifyReport, verify, verify_pipeline, verify_sources

__all__ = ["verify", "verify_sources", "verify_pipeline", "VerifyReport", "OutputResult", "Tolerance", "HarnessError",
           "parse_call_args", "verify_program", "verify_configured_program", "ProgramReport"]

"""The exit codes every command returns (the CLI contract in DESIGN.md): a module of their own, below the commands
that share them (``api``, ``lint``, the CLI)."""

EXIT_CLEAN = 0  # nothing left to do
EXIT_PENDING = 1  # changes pending, or manual follow-ups remain
EXIT_ERROR = 2  # usage, I/O or parse errors

"""Maintenance scripts that need DALI installed (the codemod itself does not)."""

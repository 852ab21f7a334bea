"""Golden cases: ``golden/<group>/<case>.py`` migrates to ``<case>.expected.py`` exactly, a second
run changes nothing, and migrated code never imports dali_migrate.

Regenerate an expected file after an intended change with ``DALI_MIGRATE_REGEN=1 pytest tests/test_golden.py``
and read the diff before committing it.
"""

import os

import pytest

from conftest import golden_cases
from dali_migrate import migrate_source
from dali_migrate.files import read_source
from dali_migrate.findings import MARKER_PREFIX


@pytest.mark.parametrize("source_path, expected_path", golden_cases())
def test_golden(source_path, expected_path):
    source = read_source(source_path)
    result = migrate_source(source, source_path.name)
    assert result.error is None, result.error
    if os.environ.get("DALI_MIGRATE_REGEN"):
        expected_path.write_text(result.migrated)
    expected = read_source(expected_path)
    assert result.migrated == expected

    # Idempotent: migrating the output again changes nothing.
    again = migrate_source(result.migrated, source_path.name)
    assert again.error is None
    assert again.migrated == result.migrated

    # The marker contract: every finding left for a person has its marker in the code, and back.
    manual_rules = sorted(f.rule for f in result.findings if not f.fixed)
    markers = sorted(line.split()[2] for line in result.migrated.splitlines()
                     if line.strip().startswith(MARKER_PREFIX))
    assert manual_rules == markers
    assert "dali_migrate" not in result.migrated


def test_there_are_golden_cases():
    assert len(golden_cases()) >= 1

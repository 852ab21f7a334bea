import re
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"


def golden_cases():
    """Every ``golden/<group>/<case>.py`` that has a ``<case>.expected.py`` beside it."""
    cases = []
    for expected in sorted(GOLDEN.rglob("*.expected.py")):
        source = expected.with_name(expected.name.replace(".expected.py", ".py"))
        if source.exists():
            cases.append(pytest.param(source, expected, id=str(source.relative_to(GOLDEN))))
    return cases


# The inner loop's subset (scripts/test.sh -m "not slow", README): these files run DALI, TensorFlow or JAX
# programs, the CLI, an MCP server, pip or a browser in subprocesses, or whole programs and corpora; their tests
# are marked `slow`. A single slow test elsewhere carries @pytest.mark.slow itself.
SLOW_FILES = frozenset({
    "test_golden_programs.py",  # every golden program, both modes, in subprocesses
    "test_whole_program_verify.py", "test_verify_program.py", "test_harness.py", "test_report_verified.py",
    "test_report_examples.py",  # verify: both sides in child processes
    "test_dali_suite.py", "test_nvidia_examples_data.py", "test_passes_on_dali.py",  # DALI's tests and examples
    "test_skill.py", "test_skill_evals.py", "test_skill_runner.py",  # the skill's code blocks against DALI
    "test_frameworks.py", "test_training_loop.py", "test_threads.py", "test_prefetch_runtime.py",
    "test_scale.py", "test_stdlib_sample.py",  # large inputs: many files, the standard library
    "test_quiet_setup.py",  # pip metadata builds, setup scripts
    "test_mcp.py",  # an MCP server process
    "test_helper_module.py", "test_source_helpers.py", "test_class_hierarchy_modules.py",
    "test_call_site_source_runtime.py",  # projects migrated and run as programs, both modes
    "test_lint_golden.py",  # every golden case's migration linted (tests/test_golden.py stays: the cases' text)
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


# DALI's deprecation notices for the pipeline-mode operators the tests run on purpose (``fn.image_decoder`` in
# examples/repo, ``fn.shapes`` in tests/test_shapes_runtime.py: the migration rewrites them, so the originals
# must run). DALI raises them under its own ``simplefilter("default")``, which no filterwarnings entry of the
# pytest configuration can override, so they are dropped here; every other warning goes on to pytest.
_EXPECTED_DALI_DEPRECATIONS = re.compile(r"WARNING: `nvidia\.dali\.fn\.(image_decoder|shapes)` is now deprecated")


@pytest.fixture(autouse=True)
def _expected_dali_deprecations():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # record each; the filters of the run decide below
        yield
    for w in caught:
        if issubclass(w.category, DeprecationWarning) and _EXPECTED_DALI_DEPRECATIONS.match(str(w.message)):
            continue
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


@pytest.fixture(autouse=True)
def _no_stray_imports_of_tool_in_migrated(monkeypatch):
    yield


@pytest.fixture(autouse=True)
def _forget_helper_modules():
    """A test that imports migrated code imports its helper module (``dali_dynamic_compat``) from its own folder: the
    next test in the process, which runs another copy with other helpers, must import its own, not find this one."""
    yield
    sys.modules.pop("dali_dynamic_compat", None)

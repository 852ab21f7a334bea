"""The post-migration check's reading of module-level order (``postcheck.undefined_names``) and of the classes
a migration wrote (``helpers.is_tool_written_class``)."""
import libcst as cst

from dali_migrate import postcheck
from dali_migrate.transforms.unroll.helpers import is_tool_written_class


def test_a_class_read_before_its_definition_runs_is_undefined_there():
    module = cst.parse_module("loader = Loader()\n\n\nclass Loader:\n    pass\n")
    assert set(postcheck.undefined_names(module)) == {"Loader"}


def test_a_class_read_after_its_definition_is_defined():
    module = cst.parse_module("class Loader:\n    pass\n\n\nloader = Loader()\n")
    assert postcheck.undefined_names(module) == {}


def test_tool_written_classes_are_told_by_their_docstring():
    written, users = cst.parse_module(
        'class EpochIterator:\n    """Written by dali-migrate. Counts as the plugin does."""\n\n\n'
        'class MyIterator:\n    """My own iterator."""\n').body
    assert is_tool_written_class(written)
    assert not is_tool_written_class(users)

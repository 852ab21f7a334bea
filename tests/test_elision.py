"""Top-level statements that no pass can concern are left out of the libcst parse and put back byte
for byte; the migration is exactly the one of the whole file."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest

from dali_migrate import elision, engine
from dali_migrate.transforms import ELISION_TOGETHER, ELISION_WORDS, PASSES
from dali_migrate.transforms.base import Pass

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from speed_corpus import generate_scripts  # noqa: E402

LAYOUT = (
    '"""Docstring."""\r\n'
    "import nvidia.dali.fn as fn\r\n"
    "from nvidia.dali import pipeline_def\r\n"
    "\r\n"
    "# a comment before a cold statement\r\n"
    "MEAN = [0.5,\r\n"
    "        0.25]  # trailing comment\r\n"
    "a = 1; b = 2\r\n"
    "\f\r\n"
    "@decorator(\r\n"
    "    1)\r\n"
    "# between the decorator and the def\r\n"
    "def helper(x):\r\n"
    "    '''multi\r\n"
    "line'''\r\n"
    "    return x \\\r\n"
    "        + 1\r\n"
    "    # indented trailing comment\r\n"
    "\r\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\r\n"
    "def pipe():\r\n"
    "    data = fn.random.uniform(range=[0, 1], shape=[2])\r\n"
    "    return fn.cast(data, dtype=MEAN)\r\n"
    "if a:\r\n"
    "    pass\r\n"
    "# at column 0 inside the if\r\n"
    "else:\r\n"
    "    b = helper(a)\r\n"
    "z = 3"
)

EXTERNAL_SOURCE = '''\
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


def batches():
    """A generator far from DALI: its kind is read from its definition."""
    while True:
        yield [1, 2]


def len(x):
    return 0


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe():
    data = fn.external_source(source=batches)
    return data


p = pipe()
p.build()
out, = p.run()
print(len(out), out.at(0))
'''

WALRUS = '''\
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


def sizes(xs):
    """A walrus makes every word of this statement count as bound for heat, not for its placeholder."""
    if (n := len(xs)) > 3:
        print(n)
    return n


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe():
    return fn.random.uniform(range=[0, 1], shape=[2])


p = pipe()
p.build()
out, = p.run()
print(len(out))
'''

NP_TAKEN = '''\
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

np = "a module-level name that is not numpy"


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe():
    return fn.random.uniform(range=[0, 1], shape=[2])


p = pipe()
p.build()
out, = p.run()
first = out.at(0)
'''

TWO_SPACES_FIRST = '''\
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


class Meter:
  """Indented by two: the file's first indented block gives libcst the module's default indentation."""

  def __init__(self):
    self.total = 0


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe():
    return fn.random.uniform(range=[0, 1], shape=[2])


p = pipe()
p.build()
for _ in range(2):
    out, = p.run()
    print(out.as_array())
'''

NAMED_DEFINITIONS = '''\
from nvidia.dali import fn, pipeline_def
from elsewhere import compare_pipelines


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def mapped(function):
    data = fn.random.uniform(range=[0, 1], shape=[2])
    return function(data)


def twice(data):
    """Named only where a pipeline is made with it: the pipeline's graph calls it through a parameter."""
    return data * 2


def check(pipe):
    """Called with a pipeline: the flow model must read what it does with it."""
    pipe.build()
    return scale(pipe.run())


def scale(outputs, by=2):
    return [by * o.as_array() for o in outputs]


def test_mapped():
    compare_pipelines(mapped(twice), mapped(twice))
    print(check(mapped(twice)))
'''

SOURCES = {p.name: p.read_text() for p in sorted(ROOT.glob("golden/*/*.py")) if not p.name.endswith(".expected.py")}
SOURCES.update({f"script{i}": s for i, s in enumerate(generate_scripts(10, seed=5))})
SOURCES.update({"layout": LAYOUT, "external_source": EXTERNAL_SOURCE, "walrus": WALRUS, "np_taken": NP_TAKEN,
                "two_spaces_first": TWO_SPACES_FIRST, "named_definitions": NAMED_DEFINITIONS})
# and the modules of the golden programs (a per-sample source whose class elision left out was migrated with a
# run-time adapter where the whole file gave a direct call: per_sample_loader)
SOURCES.update({str(p.relative_to(ROOT / "golden")): p.read_text() for p in sorted(ROOT.glob("golden/runnable/*/*.py"))})


def _whole(source, name, passes=None):
    original = elision.elide
    elision.elide = lambda *args, **kwargs: None
    try:
        return engine.migrate_source(source, name, passes)
    finally:
        elision.elide = original


@pytest.mark.parametrize("name", sorted(SOURCES))
@pytest.mark.slow  # slow: every golden case again, through another path of the engine
def test_elision_changes_nothing(name, monkeypatch):
    """Same text and the same findings (lines and columns included) as parsing the whole file, wherever elision
    leaves anything out (not only where that pays for itself, ``worth_eliding``)."""
    monkeypatch.setattr(elision, "worth_eliding", lambda *args, **kwargs: True)
    elided = engine.migrate_source(SOURCES[name], name)
    whole = _whole(SOURCES[name], name)
    assert elided.error == whole.error
    assert elided.migrated == whole.migrated
    assert [f.to_dict() for f in elided.findings] == [f.to_dict() for f in whole.findings]


def test_most_of_a_training_script_is_left_out():
    sources = generate_scripts(10, seed=5)
    left_out = total = 0
    for source in sources:
        split = elision.elide(source, set(ELISION_WORDS))
        assert split is not None
        left_out += sum(unit.last - unit.first + 1 for unit in split.units.values())
        total += source.count("\n")
    # (29 %: `parse_args`, which `main` calls, is parsed with it since definitions hot code names are)
    assert left_out / total > 0.25


def test_layout_comes_back_byte_for_byte():
    split = elision.elide(LAYOUT, set(ELISION_WORDS))
    names = {unit.text.split("\r\n")[0] for unit in split.units.values()}
    # Cold: everything but the docstring, the imports and the pipeline. MEAN is read by the pipeline,
    # but reading a name does not heat its definition (its placeholder binds MEAN).
    assert names == {"MEAN = [0.5,", "a = 1; b = 2", "@decorator(", "if a:", "z = 3"}
    assert f"{elision.PREFIX}1 = MEAN = ...\r\n" in split.text
    assert split.restore(split.text) == LAYOUT
    # Every line of the parsed text maps back to its line in the file.
    lines, parsed = LAYOUT.split("\r\n"), split.text.split("\r\n")
    for number, line in enumerate(parsed, start=1):
        if not line.startswith(elision.PREFIX):
            assert lines[split.original_line(number) - 1] == line
    result = engine.migrate_source(LAYOUT, "layout.py")
    assert result.migrated.endswith("    b = helper(a)\r\nz = 3")


def test_a_placeholder_that_does_not_come_back_means_the_whole_file():
    class DropPlaceholders(Pass):
        name = "drop"

        def run(self, module, ctx):
            return module.with_changes(body=[s for s in module.body
                                             if elision.PREFIX not in module.code_for_node(s)])

    source = SOURCES["script0"]
    split = elision.elide(source, set(ELISION_WORDS))
    assert split.restore(split.text.replace(f"{elision.PREFIX}1 ", f"{elision.PREFIX}1  ")) is None
    assert split.restore(split.text + split.units[f"{elision.PREFIX}1"].placeholder + "\n") is None
    dropped = engine.migrate_source(source, "x.py", passes=[*PASSES, DropPlaceholders()])
    # The fallback parses the whole file: the pass sees no placeholder and drops nothing.
    assert dropped.migrated == engine.migrate_source(source, "x.py").migrated


def test_no_elision_where_it_is_not_safe_or_useless():
    assert elision.elide("import nvidia.dali.fn as fn\nx = (\n", set()) is None  # does not parse
    star = "from nvidia.dali.fn import *\nimport json\nx = json.dumps(1)\n"
    assert elision.elide(star, set()) is None  # any word could be a DALI name
    assert elision.elide(f"import nvidia.dali.fn as fn\n{elision.PREFIX}1 = 2\ny = 1\n", set()) is None
    assert elision.elide("import nvidia.dali.fn as fn\nx = fn.flip(1)\n", set()) is None  # all hot


def test_definitions_hot_code_names_are_read():
    """The external_source generator and a module-level `def len` are named by hot code (the pipeline, the
    print), so they are parsed with it (they were placeholders, read through ``ModuleSymbols``): `len(out)` is
    not the builtin, and the generator's kind is read from its def."""
    result = engine.migrate_source(EXTERNAL_SOURCE, "es.py")
    assert elision.elide(EXTERNAL_SOURCE, set(ELISION_WORDS)) is None
    assert "print(len(out)" in result.migrated  # not rewritten to out.batch_size
    assert "for data in batches():" in result.migrated  # a generator, read from its def


def test_a_placeholder_binds_what_its_statement_binds_not_every_word():
    split = elision.elide(WALRUS, set(ELISION_WORDS))
    assert [unit.placeholder for unit in split.units.values()] == [f"{elision.PREFIX}1 = n = sizes = ..."]
    assert "print(out.batch_size)" in engine.migrate_source(WALRUS, "w.py").migrated  # len is the builtin


def test_a_name_taken_in_an_elided_statement_is_not_reused():
    """TensorList.at(i) needs numpy; `np` is taken by an elided statement, so `import numpy` is used."""
    split = elision.elide(NP_TAKEN, set(ELISION_WORDS))
    assert split.uses_name("np") and not split.uses_name("numpy")
    migrated = engine.migrate_source(NP_TAKEN, "np.py").migrated
    assert "import numpy\n" in migrated and "first = numpy.array(out.select(0))" in migrated


def test_a_placeholder_binds_names_bound_from_inside_functions_and_match_captures():
    """`global`, `:=` and `match` captures bind module names from deep inside a statement; the deep
    walk that finds them runs only when one of those words is there, and must still run then."""
    source = (
        "import nvidia.dali.fn as fn\n"
        "def reset():\n    global counter\n    counter = 0\n"
        "def grow(items):\n    return [total := item for item in items]\n"
        "match sys_argv:\n    case [first, *rest]:\n        pass\n    case {'k': v, **others}:\n        pass\n"
        "def plain(a):\n    b = a\n    return b\n"
        "y = fn.flip(1)\n")
    split = elision.elide(source, set(ELISION_WORDS))
    assert [unit.placeholder.split(" = ", 1)[1] for unit in split.units.values()] == [
        "counter = reset = ...", "grow = total = ...", "first = others = rest = v = ...", "plain = ..."]


def test_the_first_indented_block_stays_in_the_parsed_text():
    """libcst's default indentation (what the code the passes write is indented with) is the first indented
    block's: a cold class indented by two before a pipeline indented by four is parsed (left out, the parsed text's
    first indentation would be four), and the generator the unroll writes is indented by two, as on the whole
    file."""
    split = elision.elide(TWO_SPACES_FIRST, set(ELISION_WORDS))
    assert split is None or not any(unit.text.startswith("class Meter") for unit in split.units.values())
    assert "\n      yield (ndd.random.uniform(" in engine.migrate_source(TWO_SPACES_FIRST, "m.py").migrated
    # indented as the pipeline is, the class is left out as before
    same = TWO_SPACES_FIRST.replace("\n    self", "\n        self").replace("\n  def", "\n    def").replace(
        '\n  """', '\n    """')
    split = elision.elide(same, set(ELISION_WORDS))
    assert [unit.text.split(":")[0] for unit in split.units.values()] == ["class Meter"]
    assert "\n        yield (ndd.random.uniform(" in engine.migrate_source(same, "m.py").migrated



@pytest.mark.parametrize("cold", [
    "if a: x\nelif b:\n   y\n", "if a: x\nelif b: y\nelse:\n\tz\n", "try: x\nexcept E:\n  y\n", "try: x\nexcept E: y\n",
    "if x: \\\n        pass\n", "def f(): return 1\n", "class A:\n  @d\n  def f(self): pass\n",
    "class A:\n  @ d\n  def f(self): pass\n", "while a: b\nelse:\n      c\n", "if (a and\n  b): c\n",
    "for x in y:\n # a comment\n     z\n", "match v:\n  case 1: pass\n", "async def f():\n\tawait x\n"])
def test_the_parsed_text_has_the_files_default_indentation(cold):
    source = f"{cold}import nvidia.dali.fn as fn\n\n\ndef hot():\n    return fn.flip(1)\n"
    split = elision.elide(source, set(ELISION_WORDS))
    parsed = split.text if split is not None else source
    assert cst.parse_module(parsed).default_indent == cst.parse_module(source).default_indent


def test_the_parsed_text_has_the_files_default_newline():
    """libcst's default newline is the file's first: a first statement left out must not change it."""
    source = "x = (1,\r\n     2)\nimport nvidia.dali.fn as fn\ny = fn.flip(1)\n"
    assert elision.elide(source, set(ELISION_WORDS)) is None
    assert elision.elide(source.replace("\r\n", "\n"), set(ELISION_WORDS)) is not None


def test_definitions_hot_code_names_are_parsed_with_it(monkeypatch):
    """`check(pipe)` is called with a pipeline, `twice` is handed to one whose graph calls it, `scale` is what
    `check` calls: none is left out, so the first attempt is the only one (no ``NeedsWholeFile``), and `twice`
    gets the marker of the kept pipeline it builds part of, as on the whole file."""
    split = elision.elide(NAMED_DEFINITIONS, set(ELISION_WORDS))
    assert split is None or not split.units
    whole_file = []
    migrate_parsed = engine._migrate_parsed
    monkeypatch.setattr(engine, "_migrate_parsed", lambda *args, **kwargs: (
        whole_file.append(kwargs.get("elide", True) is False), migrate_parsed(*args, **kwargs))[1])
    result = engine.migrate_source(NAMED_DEFINITIONS, "named.py")
    assert whole_file == [False]
    assert "# dali-migrate: DM230 twice builds part of mapped" in result.migrated


def test_a_definition_no_hot_code_names_is_still_left_out():
    source = NAMED_DEFINITIONS + "\n\ndef unused(x):\n    return twice\n"
    split = elision.elide(source, set(ELISION_WORDS))
    assert [unit.text.split("(")[0] for unit in split.units.values()] == ["def unused"]


def test_elision_is_worth_it_only_where_it_leaves_out_enough():
    """``worth_eliding`` guesses from the text alone; it may say True where ``elide`` then leaves out little, never
    False where ``elide`` would leave out ``WORTH_ELIDING`` or more of the file."""
    together = ELISION_TOGETHER
    said_no = 0
    for name, source in SOURCES.items():
        split = elision.elide(source, set(ELISION_WORDS), None, together)
        left_out = 0 if split is None else sum(len(unit.text) for unit in split.units.values())
        if not elision.worth_eliding(source, set(ELISION_WORDS), together):
            said_no += 1
            assert left_out < elision.WORTH_ELIDING * len(source), name
    assert said_no > 50  # (most golden cases are a pipeline and the code that runs it: nothing worth leaving out)
    # A training script leaves out its model and its schedule; the estimate sees them.
    assert all(elision.worth_eliding(s, set(ELISION_WORDS)) for s in generate_scripts(5, seed=7))


def test_what_a_dali_import_binds_heats_and_its_path_does_not():
    hot = "from nvidia.dali.pipeline import Pipeline\nimport nvidia.dali.fn as fn\n\n\n"
    cold = ("def helper():\n    '''Mentions the pipeline, a word of the first statement's path only.'''\n"
            + "    x = 1\n" * 40)
    assert elision.worth_eliding(hot + cold + "p = Pipeline()\n", set())
    assert not elision.worth_eliding(hot + cold.replace("x = 1", "x = fn") + "p = Pipeline()\n", set())
    # a def that hot code names is hot (elide parses it with the hot code)
    assert not elision.worth_eliding(hot + cold + "p = Pipeline(helper)\n", set())

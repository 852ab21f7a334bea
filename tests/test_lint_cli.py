"""``dali-migrate lint``: output format, --json, --fix (atomic, re-lint), suppression, exit codes."""

import json
import os

from dali_migrate.cli import main
from dali_migrate.findings import RULES
from dali_migrate.lint import lint_paths, lint_source

H = "import nvidia.dali.experimental.dynamic as ndd\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_output_is_path_line_col_rule_message_sorted(tmp_path, capsys):
    write(tmp_path, "b.py", H + "b = ndd.as_batch(s)\nn = len(b)\nx = b[0]\n")
    write(tmp_path, "a.py", H + 'i = ndd.decoders.image(j, device="mixed")\n')
    assert main(["lint", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{tmp_path / 'a.py'}:2:34: DM301 " + out[0].split(" DM301 ")[1],
        f"{tmp_path / 'b.py'}:3:5: DM303 " + out[1].split(" DM303 ")[1],
        f"{tmp_path / 'b.py'}:4:5: DM302 " + out[2].split(" DM302 ")[1],
    ]


def test_clean_exits_0_and_no_dali_is_clean(tmp_path, capsys):
    write(tmp_path, "ok.py", H + "b = ndd.as_batch(s)\nn = b.batch_size\n")
    write(tmp_path, "plain.py", "x = [1]\nn = len(x)\n")
    assert main(["lint", str(tmp_path)]) == 0
    assert capsys.readouterr().out == ""


def test_parse_error_exits_2_with_file_and_line(tmp_path, capsys):
    write(tmp_path, "bad.py", H + "def f(:\n    pass\n")
    write(tmp_path, "ok.py", H + "b = ndd.as_batch(s)\nn = len(b)\n")
    assert main(["lint", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert f"{tmp_path / 'bad.py'}:2: error: does not parse" in captured.err
    assert "DM303" in captured.out  # the other files are still linted
    assert main(["lint", str(tmp_path / "missing.py")]) == 2


def test_json(tmp_path, capsys):
    write(tmp_path, "b.py", H + "b = ndd.as_batch(s)\nn = len(b)\n")
    assert main(["lint", "--json", str(tmp_path)]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["exit_code"] == 1 and payload["summary"]["findings"] == 1
    (f,) = payload["findings"]
    # 1-based columns with the end, as in the text output (`n = len(b)`: len(b) is columns 5 to 10).
    assert (f["rule"], f["line"], f["column"], f["end_line"], f["end_column"], f["extra"]["fix"]) == \
        ("DM303", 3, 5, 3, 11, "safe")


def test_fix_rewrites_safe_fixes_and_relints(tmp_path, capsys):
    path = write(tmp_path, "b.py", H + 'b = ndd.as_batch(s)\nn = len(b)\nr = ndd.readers.file(file_root="d", batch_size=2)\n'
                                       "x = b[0]\n")
    os.chmod(path, 0o640)
    assert main(["lint", "--fix", str(path)]) == 1  # DM302 is manual: it remains
    assert path.read_text() == H + ('b = ndd.as_batch(s)\nn = b.batch_size\n'
                                    'r = ndd.readers.File(file_root="d", max_batch_size=2)\nx = b[0]\n')
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    out = capsys.readouterr().out
    assert "DM302" in out and "DM303" not in out and "DM310" not in out
    assert [p.name for p in tmp_path.iterdir()] == ["b.py"]  # no temporary files left
    assert main(["lint", "--fix", str(path)]) == 1  # idempotent
    assert "n = b.batch_size" in path.read_text()


def test_unsafe_fixes_only_on_request(tmp_path):
    text = H + "import numpy as np\nb = ndd.as_batch(s)\na = np.asarray(b)\n"
    path = write(tmp_path, "b.py", text)
    assert main(["lint", "--fix", str(path)]) == 1 and path.read_text() == text
    assert main(["lint", "--fix", "--unsafe-fixes", str(path)]) == 0
    assert "np.asarray(ndd.as_tensor(b))" in path.read_text()
    assert main(["lint", "--unsafe-fixes", str(path)]) == 2


def test_suppression_comments():
    text = (H + "b = ndd.as_batch(s)\n"
            "n = len(b)  # dali-migrate: ignore[DM303]\n"
            "m = len(b)  # dali-migrate: ignore[DM302, DM306]\n"
            "x = b[len(b)]  # dali-migrate: ignore\n"
            "y = (b[0],  # dali-migrate: ignore[DM302]\n"
            "     1)\n"
            's = "# dali-migrate: ignore"; z = b[1]\n')
    result = lint_source(text)
    assert sorted((f.rule, f.line) for f in result.findings) == [("DM302", 8), ("DM303", 4)]
    # A suppressed finding is not fixed either.
    fixed = lint_source(text, fix=True)
    assert "n = len(b)  # dali-migrate: ignore[DM303]" in fixed.text and "m = b.batch_size" in fixed.text


def test_pipeline_mode_definitions_are_not_linted():
    text = ("from nvidia.dali import pipeline_def, Pipeline\n" + H +
            "@pipeline_def(batch_size=2)\ndef pipe():\n    xy = ndd.random.uniform(range=(0, 1))\n"
            "    return ndd.flip(xy, horizontal=ndd.random.coin_flip())\n"
            "class P(Pipeline):\n    def define_graph(self):\n        return ndd.random.coin_flip() and 1\n"
            "flip = ndd.random.coin_flip(batch_size=2)\nif flip:\n    pass\n")
    assert [(f.rule, f.line) for f in lint_source(text).findings] == [("DM307", 11)]


def test_function_api_for_the_mcp_server(tmp_path):
    write(tmp_path, "b.py", RULES["DM303"].before)
    run = lint_paths([tmp_path])
    assert run.exit_code() == 1 and [f.rule for f in run.findings] == ["DM303"]
    run = lint_paths([tmp_path], fix=True)
    assert run.exit_code() == 0 and run.written and (tmp_path / "b.py").read_text() == RULES["DM303"].after
    result = lint_source(RULES["DM303"].before, "x.py", fix=True)
    assert result.changed and result.fixed_source == RULES["DM303"].after and result.to_dict()["fixed"]


def test_a_dedented_comment_tail_is_linted_and_kept():
    """libcst does not print back comment lines that end a file at an indentation no block has; the lint, as the
    migration, reads the code before them (a migrated file that ends so passes the lint) and keeps them."""
    tail = "   # see https://example.org/notes\n   #######\n"
    before = RULES["DM303"].before
    text = before + "if True:\n    pass\n" + tail
    result = lint_source(text, "x.py")
    assert result.error is None and [f.rule for f in result.findings] == ["DM303"]
    result = lint_source(text, "x.py", fix=True)
    assert result.error is None and result.fixed_source == RULES["DM303"].after + "if True:\n    pass\n" + tail

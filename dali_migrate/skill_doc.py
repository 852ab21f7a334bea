"""The dynamic-mode skill document, and the runner that checks every claim in it.

The skill (``skills/dali-dynamic-mode/SKILL.md``, shipped as ``dali_migrate/data/skills/...``) is
written so that a machine can check it against the installed DALI:

* Every level-1 or level-2 heading starts a *section*; deeper headings stay in it. The ```` ```python ```` blocks of a section run in order in one
  namespace; that namespace starts with :data:`PRELUDE` (``np`` and ``ndd`` imported) and the data
  fixtures (``image_dir``, ``image_files``, ``wav_files``, ``npy_files``; see :func:`make_fixtures`).
* Claims inside python blocks: ``assert`` statements; a trailing ``# raises: Name`` or
  ``# raises: Name: text`` on a top-level statement (it must raise an exception of that class, or a
  subclass, whose message contains ``text``); a trailing ``# -> expr`` on a top-level expression
  (its value must equal ``expr``, NumPy values compared as lists). Either may end with two spaces
  and a parenthesised remark, which is not part of the claim.
* A python block with a leading comment line ``# device: gpu`` shows GPU code. Without a GPU the
  runner rewrites the string ``"gpu"`` to ``"cpu"`` and ``.gpu()`` to ``.cpu()`` before running it,
  and reports that it did.
* A python block whose leading comment lines include ``# requires: MODULE`` needs an optional
  package (``torchdata``). Where it cannot be imported the block is not run and the result says so
  (:attr:`SectionResult.skipped`); the section's other blocks still run.
* ```` ```python file=NAME ```` blocks are written to ``NAME`` in the working folder, not run.
* ```` ```bash ```` blocks run line by line in the working folder; ``dali-migrate`` runs as
  ``python -m dali_migrate`` with the package under test; a trailing ``# exit: N`` (or ``N|M``)
  asserts the exit status (default 0).
* A python or bash block whose first line is ``# illustrative: <why>`` is not run (keep them rare).
"""

from __future__ import annotations

import ast
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

SKILL_NAME = "dali-dynamic-mode"
# The copy inside the package (what the wheel ships and ``dali-migrate skill`` prints).
PACKAGED_SKILL_DIR = Path(__file__).resolve().parent / "data" / "skills" / SKILL_NAME

SECTION_LEVEL = 2  # "#" and "##" headings start a new namespace; "###" and deeper continue it
_FENCE = re.compile(r"^```(\S*)\s*(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
# ``# raises:`` and ``# -> value`` may be followed by two or more spaces and a parenthesised remark.
_REMARK = r"(?:\s{2,}\(.*\))?\s*$"
_RAISES = re.compile(r"#\s*raises:\s*([A-Za-z_][\w.]*)(?::\s*(.*?))?" + _REMARK)
_ARROW = re.compile(r"#\s*->\s*(.+?)" + _REMARK)
_EXIT = re.compile(r"#\s*exit:\s*(\d+(?:\|\d+)*)")
_GPU_STRING = re.compile(r"""(["'])gpu\1""")
_REQUIRES = re.compile(r"#\s*requires:\s*([A-Za-z_][\w.]*)\s*$")


# Every section starts with these imports (the document says so at the top).
PRELUDE = "import numpy as np\nimport nvidia.dali.experimental.dynamic as ndd\n"


class ClaimFailed(AssertionError):
    """A claim in the skill that the installed DALI contradicts."""


@dataclass
class Block:
    lang: str
    code: str
    line: int  # 1-based line in the document of the first code line
    info: str = ""  # the rest of the fence's info string, e.g. "file=pipe.py"

    @property
    def first_line(self) -> str:
        return self.code.lstrip().splitlines()[0].strip() if self.code.strip() else ""

    @property
    def illustrative(self) -> bool:
        return self.first_line.startswith("# illustrative:")

    @property
    def header(self) -> list[str]:
        """The block's leading comment lines (where ``# device:`` and ``# requires:`` go)."""
        lines = []
        for line in self.code.strip().splitlines():
            if not line.startswith("#"):
                break
            lines.append(line.strip())
        return lines

    @property
    def gpu(self) -> bool:
        return any(line.replace(" ", "") == "#device:gpu" for line in self.header)

    @property
    def requires(self) -> list[str]:
        return [m.group(1) for m in map(_REQUIRES.match, self.header) if m]

    @property
    def file_name(self) -> str | None:
        m = re.search(r"file=(\S+)", self.info)
        return m.group(1) if m else None

    @property
    def runs(self) -> bool:
        return self.lang in ("python", "bash") and not self.illustrative


@dataclass
class Section:
    title: str
    level: int
    line: int
    blocks: list[Block] = field(default_factory=list)

    @property
    def runnable(self) -> bool:
        return any(b.runs for b in self.blocks)


@dataclass
class SectionResult:
    section: str
    claims: int = 0  # asserts + raises + arrows + exit-status checks that held
    blocks_run: int = 0
    gpu_mapped: list[int] = field(default_factory=list)  # document lines of blocks run with gpu->cpu
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (document line, missing module)


def parse(text: str) -> list[Section]:
    """Split a Markdown document into sections (one per heading) holding their fenced blocks."""
    sections = [Section("(preamble)", 0, 1)]
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence:
            lang, info = fence.group(1), fence.group(2)
            start = i + 1
            j = start
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            code = "\n".join(lines[start:j]) + "\n"
            sections[-1].blocks.append(Block(lang, code, start + 1, info))
            i = j + 1
            continue
        heading = _HEADING.match(lines[i])
        if heading and len(heading.group(1)) <= SECTION_LEVEL:
            sections.append(Section(heading.group(2), len(heading.group(1)), i + 1))
        i += 1
    return sections


def load_skill_text() -> str:
    return (PACKAGED_SKILL_DIR / "SKILL.md").read_text(encoding="utf-8")


def gpu_available() -> bool:
    try:
        from nvidia.dali.backend import GetCUDADeviceCount

        return GetCUDADeviceCount() > 0
    except Exception:  # no DALI, or a CUDA error: treat as no GPU
        return False


def map_gpu_to_cpu(code: str) -> str:
    return _GPU_STRING.sub(r"\1cpu\1", code).replace(".gpu()", ".cpu()")


# ---------------------------------------------------------------------------------------------
# Fixtures: tiny generated data the examples read.


def make_fixtures(root: Path) -> dict:
    """Write tiny data under ``root`` and return the names the skill's examples use.

    ``image_dir``: 10 JPEGs in ``class0/`` and ``class1/`` (sample ``i`` is ``32 x (32+i)`` pixels,
    grey level ``20*i``, a white stripe on its left edge so that flips are visible);
    ``image_files``: their sorted paths (use ``labels=list(range(10))`` to tag samples by index);
    ``wav_files``: 3 mono 16 kHz 16-bit WAVs of 800, 1200 and 1000 samples; ``npy_files``: the same
    lengths as float32 ``.npy`` arrays ``arange(n)``; ``coco_dir`` and ``coco_annotations``: a
    COCO detection set (see :func:`_write_coco`).
    """
    import wave

    import numpy as np
    from PIL import Image

    root = Path(root)
    image_dir = root / "images"
    image_files = []
    for i in range(10):
        folder = image_dir / f"class{i % 2}"
        folder.mkdir(parents=True, exist_ok=True)
        pixels = np.full((32, 32 + i, 3), 20 * i, np.uint8)
        pixels[:, :4] = 255
        path = folder / f"{i:02d}.jpg"
        Image.fromarray(pixels).save(path, quality=95)
        image_files.append(str(path))
    audio_dir = root / "audio"
    audio_dir.mkdir(parents=True, exist_ok=True)
    wav_files, npy_files = [], []
    for i, n in enumerate([800, 1200, 1000]):
        wav = audio_dir / f"clip{i}.wav"
        with wave.open(str(wav), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes((np.sin(np.arange(n) * 0.05) * 8000).astype(np.int16).tobytes())
        wav_files.append(str(wav))
        npy = audio_dir / f"clip{i}.npy"
        np.save(npy, np.arange(n, dtype=np.float32))
        npy_files.append(str(npy))
    coco_dir, coco_annotations = _write_coco(root / "coco")
    return {
        "image_dir": str(image_dir),
        "image_files": sorted(image_files),
        "wav_files": wav_files,
        "npy_files": npy_files,
        "coco_dir": coco_dir,
        "coco_annotations": coco_annotations,
    }


def _write_coco(root: Path) -> tuple[str, str]:
    """A COCO instances file and 6 JPEGs of different sizes; returns (image folder, JSON path).

    Image ``i`` is ``(24+4i) x (32+8i)`` pixels with a white stripe on its left edge and ``1 + i % 3``
    boxes; box 0 covers the stripe (so a horizontal flip moves it to the right half), the others
    sit in the middle. Category ids are 3 and 7, which the reader remaps to labels 1 and 2.
    """
    import json

    import numpy as np
    from PIL import Image

    images_dir = root / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    images, annotations = [], []
    for i in range(6):
        height, width = 24 + 4 * i, 32 + 8 * i
        pixels = np.full((height, width, 3), 40 + 30 * i, np.uint8)
        pixels[:, :4] = 255
        name = f"{i:03d}.jpg"
        Image.fromarray(pixels).save(images_dir / name, quality=95)
        images.append({"id": i + 1, "file_name": name, "width": width, "height": height})
        for k in range(1 + i % 3):
            x = 0.0 if k == 0 else width / 2 - 4 + 2 * k
            annotations.append({"id": len(annotations) + 1, "image_id": i + 1, "category_id": (3, 7)[k % 2],
                                "bbox": [x, 2.0, 6.0, height / 2], "area": 3.0 * height, "iscrowd": 0})
    path = root / "instances.json"
    path.write_text(json.dumps({"images": images, "annotations": annotations,
                                "categories": [{"id": 3, "name": "stripe"}, {"id": 7, "name": "middle"}]}))
    return str(images_dir), str(path)


# ---------------------------------------------------------------------------------------------
# Running one section.


def _comments(code: str) -> dict[int, str]:
    """Line number (1-based within the block) -> the comment on that line."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string
    return out


def _plain(value):
    """Make values comparable: NumPy arrays and scalars become Python lists and numbers."""
    if hasattr(value, "tolist") and type(value).__module__.startswith("numpy"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _count_asserts(stmt: ast.stmt) -> int:
    return sum(isinstance(n, ast.Assert) for n in ast.walk(stmt))


def _where(doc: str, block: Block, lineno: int, section: Section) -> str:
    return f"{doc}:{block.line + lineno - 1}: [{section.title}]"


def _run_python(block: Block, code: str, ns: dict, doc: str, section: Section) -> int:
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        raise ClaimFailed(f"{_where(doc, block, e.lineno or 1, section)} does not parse: {e.msg}") from None
    comments = _comments(code)
    lines = code.splitlines()
    filename = f"{doc}#block-at-{block.line}"

    def failing_line(e: BaseException, default: int) -> int:
        """The block line of the innermost frame of this block in ``e``'s traceback."""
        found, tb = default, e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                found = tb.tb_lineno
            tb = tb.tb_next
        return found

    claims = 0
    for stmt in tree.body:
        span = range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
        raises = arrow = None
        for ln in span:
            c = comments.get(ln, "")
            raises = raises or _RAISES.search(c)
            arrow = arrow or _ARROW.search(c)
        where = _where(doc, block, stmt.lineno, section)
        compiled = compile(ast.Module([stmt], type_ignores=[]), filename, "exec")
        if raises:
            expected, text = raises.group(1), raises.group(2)
            try:
                exec(compiled, ns)
            except Exception as e:  # noqa: BLE001 - the claim is about which exception
                names = {k.__name__ for k in type(e).__mro__} | {f"{k.__module__}.{k.__name__}" for k in type(e).__mro__}
                if expected not in names:
                    raise ClaimFailed(f"{where} claims `raises: {expected}` but it raised {type(e).__name__}: {e}") from e
                if text and text not in str(e):
                    raise ClaimFailed(f"{where} claims the {expected} says {text!r}; it says: {e}") from e
                claims += 1
                continue
            raise ClaimFailed(f"{where} claims `raises: {expected}` but it raised nothing")
        if arrow:
            if not isinstance(stmt, ast.Expr):
                raise ClaimFailed(f"{where} `# ->` needs an expression statement")
            try:
                actual = eval(compile(ast.Expression(stmt.value), where, "eval"), ns)
            except Exception as e:  # noqa: BLE001
                raise ClaimFailed(f"{where} raised {type(e).__name__}: {e}") from e
            try:
                expected_value = eval(arrow.group(1), ns)
            except Exception as e:  # noqa: BLE001
                raise ClaimFailed(f"{where} cannot evaluate the claimed value {arrow.group(1)!r}: {e}") from e
            if _plain(actual) != _plain(expected_value):
                raise ClaimFailed(f"{where} claims `-> {arrow.group(1)}` but the value is {_plain(actual)!r}")
            claims += 1
            continue
        try:
            exec(compiled, ns)
        except AssertionError as e:
            ln = failing_line(e, stmt.lineno)
            text = lines[ln - 1].strip() if 0 < ln <= len(lines) else ""
            raise ClaimFailed(f"{_where(doc, block, ln, section)} an assertion does not hold: {text} {e}".rstrip()) from e
        except Exception as e:  # noqa: BLE001
            ln = failing_line(e, stmt.lineno)
            raise ClaimFailed(f"{_where(doc, block, ln, section)} raised {type(e).__name__}: {e}") from e
        claims += _count_asserts(stmt)
    return claims


def _bash_env() -> dict:
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def _run_bash(block: Block, doc: str, section: Section) -> int:
    claims = 0
    for offset, raw in enumerate(block.code.splitlines()):
        command = raw.split(" #")[0].strip() if " #" in raw else raw.strip()
        if not command or command.startswith("#"):
            continue
        m = _EXIT.search(raw)
        expected = {int(code) for code in m.group(1).split("|")} if m else {0}
        if command.startswith("dali-migrate "):
            command = f'"{sys.executable}" -m dali_migrate ' + command[len("dali-migrate "):]
        done = subprocess.run(["bash", "-c", command], env=_bash_env(), capture_output=True, text=True, timeout=120)
        where = _where(doc, block, offset + 1, section)
        if done.returncode not in expected:
            claimed = "|".join(map(str, sorted(expected)))
            raise ClaimFailed(
                f"{where} `{raw.strip()}` exited {done.returncode}, claimed {claimed}\n"
                f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
            )
        claims += 1
    return claims


def run_section(section: Section, fixtures: dict, doc: str = "SKILL.md", map_gpu: bool | None = None) -> SectionResult:
    """Run the blocks of one section in the current working folder; raise ClaimFailed on a false claim."""
    if map_gpu is None:
        map_gpu = not gpu_available()
    result = SectionResult(section.title)
    ns: dict = {"__name__": "__skill__", **fixtures}
    try:
        exec(PRELUDE, ns)
        for block in section.blocks:
            if block.lang == "python" and block.file_name:
                Path(block.file_name).write_text(block.code, encoding="utf-8")
                continue
            if not block.runs:
                continue
            missing = [m for m in block.requires if importlib.util.find_spec(m.split(".")[0]) is None]
            if missing:
                result.skipped.append((block.line, missing[0]))
                continue
            if block.lang == "bash":
                result.claims += _run_bash(block, doc, section)
            else:
                code = block.code
                if block.gpu and map_gpu:
                    code = map_gpu_to_cpu(code)
                    result.gpu_mapped.append(block.line)
                result.claims += _run_python(block, code, ns, doc, section)
            result.blocks_run += 1
    finally:
        _release(ns)
    return result


def _release(ns: dict) -> None:
    """Close the generators a section left half-read, here and now, and drop its names.

    A suspended ``reader.next_epoch()`` generator keeps its EvalContext entered (docs/dali-facts.md,
    "Half-read next_epoch generators"). The section's names form a reference cycle (its functions'
    globals are ``ns``), so without this they are closed whenever the cyclic collector runs: possibly
    in DALI's worker thread or under another EvalContext, where DALI 2.4.0's ``EvalContext.__exit__``
    fails an assertion that is printed as an unraisable exception."""
    import gc
    import inspect

    for value in list(ns.values()):
        if inspect.isgenerator(value):
            value.close()
    ns.clear()
    gc.collect()


def iter_check(text: str, workdir: Path, doc: str = "SKILL.md", only_exact: str | None = None):
    """Run each runnable section of ``text`` in its own sub-folder of ``workdir``.

    Yields ``(section, result, failure)``: ``result`` a SectionResult when every claim held,
    ``failure`` the ClaimFailed otherwise. The working folder is restored afterwards.
    """
    workdir = Path(workdir)
    fixtures = make_fixtures(workdir / "data")
    here = os.getcwd()
    try:
        for n, section in enumerate(parse(text)):
            if not section.runnable or (only_exact is not None and section.title != only_exact):
                continue
            folder = workdir / f"section{n:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            os.chdir(folder)
            try:
                yield section, run_section(section, fixtures, doc), None
            except ClaimFailed as failure:
                yield section, None, failure
            finally:
                os.chdir(here)
    finally:
        os.chdir(here)


def install(target_dir: Path) -> Path:
    """Copy the skill folder to ``target_dir/dali-dynamic-mode`` (replacing our own files there)."""
    dest = Path(target_dir) / SKILL_NAME
    dest.mkdir(parents=True, exist_ok=True)
    for path in sorted(PACKAGED_SKILL_DIR.rglob("*")):
        if path.is_file():
            out = dest / path.relative_to(PACKAGED_SKILL_DIR)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, out)
    return dest

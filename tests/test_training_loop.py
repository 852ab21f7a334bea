"""The training-loop measurement (issue 18): each side in its own processes, alternating, with a consumer
that converts every output and works between batches; ``verify --consumer-ms`` reports it per work time."""

import json

import pytest

from dali_migrate import cli, migrate_source
from dali_migrate.harness.training_loop import TrainingLoopError, measure_training_loop
from runtime import make_images, on_cpu

ORIGINAL = '''
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
def small(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=1)
    images = fn.resize(fn.decoders.image(jpegs), size=(24, 24))
    return fn.flip(images, horizontal=fn.random.coin_flip()), labels
'''


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    return str(make_images(tmp_path_factory.mktemp("images"), count=10, classes=2))


def _sides(tmp_path, migrated):
    (tmp_path / "small.py").write_text(ORIGINAL)
    return {"original": (ORIGINAL, str(tmp_path / "small.py")), "migrated": (migrated, str(tmp_path / "small.py"))}


def test_each_side_and_work_time_is_timed_in_its_own_process(tmp_path, image_root):
    migrated = on_cpu(migrate_source(ORIGINAL, "small.py").migrated)
    result = measure_training_loop(_sides(tmp_path, migrated), "small", [image_root], work_ms=(0, 5), runs=1,
                                   warmup=1, iterations=4)
    data = result.to_dict()
    assert [w["work_ms"] for w in data["work_ms"]] == [0.0, 5.0]
    for by_work in data["work_ms"]:
        for side in ("original", "migrated"):
            assert len(by_work[side]["samples_per_s"]) == 1 and by_work[side]["samples_per_s"][0] > 0
            assert by_work[side]["median_per_cpu_s"] > 0
        assert by_work["ratios"]["migrated"] == pytest.approx(
            by_work["migrated"]["median"] / by_work["original"]["median"], rel=1e-3)
    # 4 steps of 4 samples with 5 ms of work each cannot run faster than 16 / 0.02 samples/s
    assert data["work_ms"][1]["original"]["samples_per_s"][0] < 16 / 0.02
    assert "work 5 ms:" in result.format() and len(result.load_average) == 4


def test_runs_alternate_the_sides_and_rotate_their_order(monkeypatch):
    from dali_migrate.harness import training_loop

    order = []

    def fake(spec, tmp, timeout_s, env):
        order.append((spec["side"], spec["work_ms"]))
        return {"samples_per_s": 1.0, "samples_per_cpu_s": 1.0}

    monkeypatch.setattr(training_loop, "_run_process", fake)
    sides = {"original": ("", "a.py"), "before": ("", "a.py"), "after": ("", "a.py")}
    result = measure_training_loop(sides, "p", work_ms=(0, 10), runs=2)
    assert order == [("original", 0.0), ("before", 0.0), ("after", 0.0), ("original", 10.0), ("before", 10.0),
                     ("after", 10.0), ("before", 0.0), ("after", 0.0), ("original", 0.0), ("before", 10.0),
                     ("after", 10.0), ("original", 10.0)]
    assert result.ratio(10.0, "after") == 1.0


def test_a_side_that_fails_or_aborts_at_exit_fails_the_measurement(tmp_path, image_root):
    migrated = on_cpu(migrate_source(ORIGINAL, "small.py").migrated)
    with pytest.raises(TrainingLoopError, match="migrated side, work 0 ms: the process exited with status 1"):
        measure_training_loop(_sides(tmp_path, migrated + "\nraise RuntimeError('broken')\n"), "small",
                              [image_root], work_ms=(0,), runs=1, warmup=1, iterations=2)
    # A thread left inside DALI when the interpreter ends aborts it (SIGABRT, exit 134) after the result is
    # printed: a user would see that exit status. Whether a thread is inside DALI at that moment is a race,
    # so the abort is made certain here.
    aborting = migrated + "\nimport atexit as _atexit, os as _os\n_atexit.register(_os.abort)\n"
    with pytest.raises(TrainingLoopError, match="after printing its result"):
        measure_training_loop(_sides(tmp_path, aborting), "small", [image_root], work_ms=(0,), runs=1, warmup=1,
                              iterations=2)


def test_cli_consumer_ms(tmp_path, image_root, capsys):
    (tmp_path / "small.py").write_text(ORIGINAL)
    code = cli.main(["verify", str(tmp_path / "small.py"), "--pipeline", "small", "--args",
                     json.dumps([image_root]), "--iterations", "2", "--consumer-ms", "0", "--runs", "1",
                     "--consumer", "torch", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["verdict"] == "equal"
    loop = payload["training_loop"]
    assert loop["consumer"] == "torch" and loop["runs"] == 1 and loop["work_ms"][0]["work_ms"] == 0.0
    assert loop["work_ms"][0]["ratios"]["migrated"] > 0
    assert cli.main(["verify", str(tmp_path / "small.py"), "--pipeline", "small", "--consumer-ms", "x"]) == 2
    assert "--consumer-ms: expected milliseconds" in capsys.readouterr().err
    assert cli.main(["verify", str(tmp_path / "small.py"), "--pipeline", "small", "--runs", "2"]) == 2
    assert "--consumer and --runs belong to --consumer-ms" in capsys.readouterr().err


def test_the_report_shows_the_training_loop_per_work_time(tmp_path, monkeypatch):
    """``report --consumer-ms`` hands the work times to the verifier and shows what it measured (a stand-in
    verifier here: the measurement itself is tested above)."""
    from dali_migrate.report import MEASURED_KEY, build_report, write_report

    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.py").write_text(ORIGINAL)
    asked = []

    def stand_in(original, migrated, *, path, name, args, kwargs, training_loop):
        asked.append(training_loop)
        rows = [{"work_ms": w, "original": {"median": 1000.0}, "migrated": {"median": 900.0 + w},
                 "ratios": {"migrated": (900.0 + w) / 1000}, "cpu_ratios": {"migrated": 0.9}}
                for w in training_loop["work_ms"]]
        return {"status": "equal", "reason": "", "training_loop": {"consumer": "numpy", "runs": 3, "work_ms": rows}}

    report = build_report(["."], {"small": {"args": ["/data"]}}, progress=False, verifier=stand_in,
                          training_loop={"work_ms": [0.0, 20.0]})
    assert asked == [{"work_ms": [0.0, 20.0]}]
    write_report(report, tmp_path / "out", plots=False)
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "### Training loop" in markdown
    assert "| `small.py::small` | 20 | 1,000 | 920 | 0.92× | 0.90× |" in markdown
    measured = json.loads((tmp_path / "out" / "report.json").read_text())[MEASURED_KEY]
    assert measured["throughput"][0]["training_loop"]["work_ms"][1]["work_ms"] == 20.0
    assert cli.main(["report", ".", "--out", str(tmp_path / "o2"), "--consumer-ms", "a,b", "--no-plots"]) == 2

"""The data generators of benchmarks/nvidia_examples write files that DALI's own readers read back.

The benchmark itself needs a DALI repository and is not run here; these are the parts that do not:
each container format, written by hand (protobuf, TFRecord framing, RecordIO, tar, LMDB), is read
by the real DALI reader and the values come back as written. The notebook pairs' reading from a git
repository is checked on a repository made here.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from nvidia_examples import data  # noqa: E402
from nvidia_examples.run import code_lines, first_error  # noqa: E402
from nvidia_examples.source import DaliRepo  # noqa: E402

dali = pytest.importorskip("nvidia.dali")
from nvidia.dali import fn, pipeline_def, types  # noqa: E402


def run_once(define, batch_size=4):
    pipe = pipeline_def(define)(batch_size=batch_size, num_threads=1, device_id=None)
    pipe.build()
    return pipe.run()


def test_tfrecord_and_its_dali_index_read_back(tmp_path):
    import nvidia.dali.tfrecord as tfrec

    assert data.crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    data.make_tfrecord(tmp_path, count=5)
    folder = tmp_path / "db" / "tfrecord"
    assert len((folder / "train.idx").read_text().splitlines()) == 5  # made by DALI's tfrecord2idx

    def define():
        d = fn.readers.tfrecord(path=str(folder / "train"), index_path=str(folder / "train.idx"), features={
            "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
            "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
            "image/class/text": tfrec.FixedLenFeature([], tfrec.string, ""),
            "image/object/bbox/xmin": tfrec.VarLenFeature(tfrec.float32, 0.0),
            "image/object/bbox/xmax": tfrec.VarLenFeature(tfrec.float32, 0.0)})
        return (fn.decoders.image(d["image/encoded"]), d["image/class/label"], d["image/class/text"],
                d["image/object/bbox/xmin"], d["image/object/bbox/xmax"])

    images, labels, texts, xmin, xmax = run_once(define, batch_size=5)
    for i in range(5):
        label = int(labels.at(i)[0])
        assert 1 <= label <= len(data.CLASS_NAMES)
        assert bytes(texts.at(i)).decode() == data.CLASS_NAMES[label - 1]
        assert images.at(i).shape == (256, 320, 3)
        assert xmin.at(i).shape == xmax.at(i).shape == (1 + (label - 1) % 2,)
        assert (xmin.at(i) <= xmax.at(i)).all()


def test_coco_annotations_read_back_with_polygons(tmp_path):
    data.make_coco(tmp_path, count=4)
    folder = tmp_path / "db" / "coco"
    written = json.loads((folder / "instances.json").read_text())

    def define():
        jpegs, boxes, labels, polygons, vertices = fn.readers.coco(
            file_root=str(folder / "images"), annotations_file=str(folder / "instances.json"),
            polygon_masks=True, ratio=True)
        return fn.decoders.image(jpegs, output_type=types.RGB), boxes, labels, polygons, vertices

    images, boxes, labels, polygons, vertices = run_once(define)
    for i, image in enumerate(written["images"]):
        annotations = [a for a in written["annotations"] if a["image_id"] == image["id"]]
        w, h = image["width"], image["height"]
        assert images.at(i).shape == (h, w, 3)
        expected = [[a["bbox"][0] / w, a["bbox"][1] / h, a["bbox"][2] / w, a["bbox"][3] / h] for a in annotations]
        np.testing.assert_allclose(boxes.at(i), expected, rtol=1e-6)
        assert sorted(labels.at(i).tolist()) == sorted(a["category_id"] for a in annotations)
        assert polygons.at(i).shape == (len(annotations), 3) and vertices.at(i).shape == (3 * len(annotations), 2)


def test_recordio_webdataset_and_numpy_read_back(tmp_path):
    data.make_recordio(tmp_path, count=4)
    data.make_webdataset(tmp_path, count=4)
    data.make_mri_numpy(tmp_path, slices=4, size=64)
    db = tmp_path / "db"

    def define():
        rec, rec_labels = fn.readers.mxnet(path=[str(db / "recordio" / "train.rec")],
                                           index_path=[str(db / "recordio" / "train.idx")])
        wds, cls = fn.readers.webdataset(paths=str(db / "webdataset" / "train.tar"),
                                         index_paths=str(db / "webdataset" / "train.idx"),
                                         ext=["jpg", "cls"], missing_component_behavior="error")
        slices = fn.readers.numpy(file_root=str(db / "3D/MRI/Knee/npy_2d_slices/STU00001/SER00001"),
                                  file_filter="*.npy", roi_start=[8, 8], roi_end=[40, 40])
        return fn.decoders.image(rec), rec_labels, fn.decoders.image(wds), cls, slices

    rec, rec_labels, wds, cls, slices = run_once(define)
    for i in range(4):
        assert rec.at(i).shape == wds.at(i).shape == (256, 320, 3)
        assert float(rec_labels.at(i)[0]).is_integer()
        assert bytes(cls.at(i)).decode().isdigit()
        source = np.load(db / "3D/MRI/Knee/npy_2d_slices/STU00001/SER00001" / f"{i}.npy")
        np.testing.assert_array_equal(slices.at(i), source[8:40, 8:40])
    volume = np.load(db / "3D/MRI/Knee/npy_3d/STU00001/SER00001.npy")
    assert volume.shape == (4, 64, 64)


def test_caffe_and_caffe2_lmdb_read_back(tmp_path):
    pytest.importorskip("lmdb")
    assert data.make_caffe_lmdb(tmp_path, count=3) == "lmdb and c2lmdb: 3 JPEG records each"

    def define():
        caffe, caffe_labels = fn.readers.caffe(path=str(tmp_path / "db" / "lmdb"))
        caffe2, caffe2_labels = fn.readers.caffe2(path=str(tmp_path / "db" / "c2lmdb"))
        return fn.decoders.image(caffe), caffe_labels, fn.decoders.image(caffe2), caffe2_labels

    caffe, caffe_labels, caffe2, caffe2_labels = run_once(define, batch_size=3)
    for i in range(3):
        assert caffe.at(i).shape == caffe2.at(i).shape == ((400, 560, 3) if i == 0 else (375, 500, 3))
        assert 0 <= int(caffe_labels.at(i)[0]) < 1000
        assert int(caffe_labels.at(i)[0]) == int(caffe2_labels.at(i)[0])  # same seed, same labels


def test_speech_wav_decodes(tmp_path):
    data.make_speech_wav(tmp_path)
    wav = tmp_path / "db" / "audio" / "wav" / "237-134500-0000.wav"

    def define():
        encoded, _ = fn.readers.file(files=[str(wav)])
        audio, rate = fn.decoders.audio(encoded, dtype=types.INT16)
        return audio, rate

    audio, rate = run_once(define, batch_size=1)
    assert float(rate.at(0)) == 16000.0
    np.testing.assert_array_equal(audio.at(0)[:, 0], data.speech_like(3.0, 16000))


def test_a_bare_repository_gives_its_notebook_pairs_and_their_files(tmp_path):
    work = tmp_path / "work"
    example = work / "docs" / "examples" / "image_processing" / "demo"
    example.mkdir(parents=True)
    cells = [{"cell_type": "code", "source": ["x = 1\n", "# c\n", "\n"]}]
    (example / "pipeline_mode.ipynb").write_text(json.dumps({"cells": cells}))
    (example / "dynamic_mode.ipynb").write_text('{"cells": [{"cell_type": "code", "source": "y = 2"}]}')
    (example.parent / "synsets.py").write_text("names = []\n")
    (example / "synsets.py").symlink_to("../synsets.py")
    (work / "docs" / "examples" / "lonely").mkdir()
    (work / "docs" / "examples" / "lonely" / "pipeline_mode.ipynb").write_text("{}")
    (work / "docs" / "examples" / "data").mkdir()
    (work / "docs" / "examples" / "data" / "a.txt").write_text("data")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "."], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-q", "-m", "x"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(tmp_path / "bare")], check=True)

    for repo in (DaliRepo(work), DaliRepo(tmp_path / "bare")):
        assert repo.pairs() == ["image_processing/demo"]  # "lonely" has no dynamic_mode beside it
        project = tmp_path / f"project-{bool(repo.commit)}"
        assert repo.extract_example("image_processing/demo", project) == []
        copied = project / "docs" / "examples"
        assert (copied / "image_processing/demo/synsets.py").read_text() == "names = []\n"  # the link, followed
        assert (copied / "data/a.txt").read_text() == "data"
        assert not (copied / "image_processing/demo/dynamic_mode.ipynb").exists()
        notebook = repo.read("docs/examples/image_processing/demo/pipeline_mode.ipynb").decode()
        assert code_lines(notebook) == {"lines": 3, "code": 1}


def test_first_error_names_the_cell_and_what_dali_said():
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "/x/run_notebook.py", line 140, in main\n'
        '  File "nb.ipynb:cell[10]", line 3, in <module>\n'
        "RuntimeError: Critical error when building pipeline:\n"
        "Error in CPU operator `nvidia.dali.fn.readers.video`,\n"
        "encountered:\n"
        "\n"
        'Assert on "it != registry_.end()" failed: Operator "readers__Video" not registered for cpu.\n'
    )
    assert first_error(stderr) == ('cell[10] line 3: RuntimeError: Critical error when building pipeline: ... '
                                   'Assert on "it != registry_.end()" failed: Operator "readers__Video" '
                                   'not registered for cpu.')

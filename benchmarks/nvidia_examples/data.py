"""Small generated stand-ins for the DALI_extra data that NVIDIA's docs examples read.

The examples read ``$DALI_EXTRA_PATH/db/...`` (a git-lfs repository of several GB). Each
generator below writes a few files with the same layout and the same container format, made
here from PIL, numpy and the standard library, so that a notebook pointed at the generated
folder through ``DALI_EXTRA_PATH`` runs its readers unchanged. Index files are made with DALI's
own tools where DALI ships one that runs here (``tfrecord2idx``, ``wds2idx``); ``rec2idx``
needs MXNet, so the RecordIO index is written directly (its format is one ``key<TAB>offset``
line per record). LMDB needs the ``lmdb`` package and videos an H.264 encoder (the ffmpeg
that ``imageio-ffmpeg`` ships): without them those folders are not made and the reason is
returned, never a half-made folder.

What is generated (paths under the DALI_extra root):

* ``db/coco/images/*.jpg`` + ``db/coco/instances.json`` (boxes and polygon masks)
* ``db/3D/MRI/Knee/npy_2d_slices/STU00001/SER0000{1,2}/{0..N}.npy`` and ``npy_3d/STU00001/*.npy``
* ``db/lmdb`` (Caffe ``Datum`` records) and ``db/c2lmdb`` (Caffe2 ``TensorProtos``)
* ``db/recordio/train.{rec,idx}`` (MXNet RecordIO)
* ``db/tfrecord/train`` (+ ``train.idx``; the examples build their own index with tfrecord2idx)
* ``db/webdataset/train.{tar,idx}`` (``jpg`` + ``cls`` components)
* ``db/audio/wav/237-134500-0000.wav`` (16 kHz mono speech-like signal)
* ``db/video/...`` and ``db/optical_flow/sintel_trailer/sintel_trailer_short.mp4`` (H.264)
"""

from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess
import sys
import tarfile
import wave
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

SEED = 1234


# -- images ------------------------------------------------------------------------------------

def synthetic_image(rs: np.random.RandomState, height: int, width: int) -> Image.Image:
    """A picture with structure (gradients, shapes, noise), so that decoders, resizes and
    colour operators have something to work on."""
    y, x = np.mgrid[0:height, 0:width]
    phase = rs.uniform(0, 2 * np.pi, 3)
    base = np.stack([127 + 100 * np.sin(x / rs.uniform(20, 60) + phase[0]),
                     127 + 100 * np.cos(y / rs.uniform(20, 60) + phase[1]),
                     (x + y) * 255.0 / (width + height)], -1)
    img = Image.fromarray((base + rs.randint(0, 24, (height, width, 3))).clip(0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(img)
    for _ in range(4):
        x0, y0 = rs.randint(0, width - 20), rs.randint(0, height - 20)
        x1, y1 = x0 + rs.randint(10, width // 2), y0 + rs.randint(10, height // 2)
        colour = tuple(int(c) for c in rs.randint(0, 256, 3))
        (draw.ellipse if rs.rand() < 0.5 else draw.rectangle)([x0, y0, x1, y1], fill=colour)
    return img


def jpeg_bytes(img: Image.Image, quality: int = 85) -> bytes:
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=quality)
    return out.getvalue()


def _jpegs(count: int, size=(288, 384), seed: int = SEED) -> list[bytes]:
    rs = np.random.RandomState(seed)
    return [jpeg_bytes(synthetic_image(rs, *size)) for _ in range(count)]


# -- protocol buffers, by hand (the three messages the readers need) ---------------------------

def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32/int64 are sent as 64-bit two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def pb_varint(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def pb_bytes(field: int, value: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(value)) + value


def pb_packed(field: int, payload: bytes) -> bytes:
    return pb_bytes(field, payload)


def tf_example(features: dict) -> bytes:
    """A ``tf.train.Example``: values are ``bytes``/``str`` (BytesList), ``float`` (FloatList) or
    ``int`` (Int64List), alone or in a list."""
    entries = b""
    for key, value in features.items():
        values = value if isinstance(value, list) else [value]
        if all(isinstance(v, (bytes, str)) for v in values):
            kind = b"".join(pb_bytes(1, v.encode() if isinstance(v, str) else v) for v in values)
            feature = pb_bytes(1, kind)
        elif all(isinstance(v, float) for v in values):
            feature = pb_bytes(2, pb_packed(1, struct.pack(f"<{len(values)}f", *values)))
        else:
            feature = pb_bytes(3, pb_packed(1, b"".join(_varint(int(v)) for v in values)))
        entries += pb_bytes(1, pb_bytes(1, key.encode()) + pb_bytes(2, feature))
    return pb_bytes(1, entries)


def caffe_datum(jpeg: bytes, label: int, height: int, width: int) -> bytes:
    """A Caffe ``Datum`` holding an encoded image."""
    return (pb_varint(1, 3) + pb_varint(2, height) + pb_varint(3, width) + pb_bytes(4, jpeg)
            + pb_varint(5, label) + pb_varint(7, 1))


def caffe2_tensor_protos(jpeg: bytes, label: int) -> bytes:
    """Caffe2 ``TensorProtos``: the image as a STRING tensor, the label as an INT32 tensor."""
    image = pb_varint(1, 1) + pb_varint(2, 4) + pb_bytes(6, jpeg)            # dims=[1], STRING
    label_tensor = pb_varint(1, 1) + pb_varint(2, 2) + pb_packed(4, _varint(label))  # INT32
    return pb_bytes(1, image) + pb_bytes(1, label_tensor)


# -- CRC32C for TFRecord framing ---------------------------------------------------------------

def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC32C[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord_frame(payload: bytes) -> bytes:
    length = struct.pack("<Q", len(payload))
    return (length + struct.pack("<I", masked_crc(length)) + payload
            + struct.pack("<I", masked_crc(payload)))


# -- DALI's own index tools --------------------------------------------------------------------

def dali_tool(name: str) -> str | None:
    """A console script DALI installs beside the running Python (tfrecord2idx, wds2idx)."""
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else shutil.which(name)


def index_with(tool_name: str, data_file: Path, index_file: Path) -> str:
    """Index ``data_file`` with one of DALI's tools; say how (or why not)."""
    tool = dali_tool(tool_name)
    if tool is None:
        return f"no index: DALI's {tool_name} was not found"
    subprocess.run([tool, str(data_file), str(index_file)], check=True, capture_output=True)
    return f"index by {tool_name}"


# -- the generators ----------------------------------------------------------------------------

CLASS_NAMES = ["tench", "goldfish", "white shark", "tiger shark", "hammerhead"]


def make_coco(root: Path, count: int = 20) -> str:
    folder = root / "db" / "coco"
    (folder / "images").mkdir(parents=True, exist_ok=True)
    rs = np.random.RandomState(SEED)
    images, annotations = [], []
    for i in range(count):
        h, w = (240, 320) if i % 2 else (256, 288)
        name = f"{i:012d}.jpg"
        (folder / "images" / name).write_bytes(jpeg_bytes(synthetic_image(rs, h, w)))
        images.append({"id": i + 1, "file_name": name, "width": w, "height": h})
        for k in range(1 + i % 3):
            bw, bh = rs.randint(30, w // 2), rs.randint(30, h // 2)
            x, y = rs.randint(0, w - bw), rs.randint(0, h - bh)
            polygon = [x, y, x + bw, y, x + bw // 2, y + bh]
            annotations.append({"id": len(annotations) + 1, "image_id": i + 1,
                                "category_id": 1 + (i + k) % 3, "iscrowd": 0,
                                "bbox": [float(x), float(y), float(bw), float(bh)],
                                "area": float(bw * bh) / 2,
                                "segmentation": [[float(v) for v in polygon]]})
    categories = [{"id": c + 1, "name": CLASS_NAMES[c], "supercategory": "fish"} for c in range(3)]
    (folder / "instances.json").write_text(json.dumps(
        {"images": images, "annotations": annotations, "categories": categories}))
    return f"{count} images, {len(annotations)} annotations with polygons"


def make_mri_numpy(root: Path, slices: int = 8, size: int = 256) -> str:
    """Knee MRI slices: 2D uint8 ``.npy`` files per series, and 3D volumes."""
    knee = root / "db" / "3D" / "MRI" / "Knee"
    rs = np.random.RandomState(SEED)
    y, x = np.mgrid[0:size, 0:size]
    volumes = []
    for series in (1, 2):
        stack = []
        folder = knee / "npy_2d_slices" / "STU00001" / f"SER{series:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        for s in range(slices):
            r = np.hypot(x - size / 2, y - size / 2)
            body = 70 + 40 * np.cos(r / (9 + s + series)) * (r < size * 0.45)
            img = (body + rs.randint(0, 20, (size, size))).clip(0, 255).astype(np.uint8)
            np.save(folder / f"{s}.npy", img)
            stack.append(img)
        volumes.append(np.stack(stack))
    folder_3d = knee / "npy_3d" / "STU00001"
    folder_3d.mkdir(parents=True, exist_ok=True)
    for series, volume in enumerate(volumes, 1):
        np.save(folder_3d / f"SER{series:05d}.npy", volume)
    return f"2 series of {slices} slices {size}x{size}, 2 volumes"


def make_caffe_lmdb(root: Path, count: int = 32) -> str:
    try:
        import lmdb
    except ImportError:
        return "skipped: the lmdb package is not installed (pip install lmdb)"
    made = []
    for name, encode in (("lmdb", "caffe"), ("c2lmdb", "caffe2")):
        folder = root / "db" / name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        rs = np.random.RandomState(SEED)
        env = lmdb.open(str(folder), map_size=1 << 28)
        with env.begin(write=True) as txn:
            for i in range(count):
                h, w = (375, 500) if i % 3 else (400, 560)
                jpeg = jpeg_bytes(synthetic_image(rs, h, w))
                label = int(rs.randint(0, 1000))  # ImageNet class ids: the examples print synsets
                value = caffe_datum(jpeg, label, h, w) if encode == "caffe" else caffe2_tensor_protos(jpeg, label)
                txn.put(f"{i:08d}".encode(), value)
        env.close()
        made.append(name)
    return f"{' and '.join(made)}: {count} JPEG records each"


def make_recordio(root: Path, count: int = 20) -> str:
    folder = root / "db" / "recordio"
    folder.mkdir(parents=True, exist_ok=True)
    rs = np.random.RandomState(SEED)
    records, index = io.BytesIO(), []
    for i, jpeg in enumerate(_jpegs(count, (256, 320))):
        header = struct.pack("<IfQQ", 0, float(rs.randint(0, 10)), i, 0)  # flag, label, id, id2
        payload = header + jpeg
        index.append(f"{i}\t{records.tell()}\n")
        records.write(struct.pack("<II", 0xCED7230A, len(payload)))  # magic, cflag=0 | length
        records.write(payload + b"\0" * (-len(payload) % 4))
    (folder / "train.rec").write_bytes(records.getvalue())
    (folder / "train.idx").write_text("".join(index))
    return f"{count} records"


TFRECORD_FEATURES = ("image/encoded", "image/class/label", "image/class/text",
                     "image/object/bbox/xmin", "image/object/bbox/ymin",
                     "image/object/bbox/xmax", "image/object/bbox/ymax")


def make_tfrecord(root: Path, count: int = 20) -> str:
    folder = root / "db" / "tfrecord"
    folder.mkdir(parents=True, exist_ok=True)
    rs = np.random.RandomState(SEED)
    frames = b""
    for jpeg in _jpegs(count, (256, 320)):
        label = int(rs.randint(0, len(CLASS_NAMES)))
        boxes = [sorted(rs.uniform(0, 1, 2).tolist()) for _ in range(1 + label % 2)]
        frames += tfrecord_frame(tf_example({
            "image/encoded": jpeg, "image/class/label": [label + 1],
            "image/class/text": CLASS_NAMES[label],
            "image/object/bbox/xmin": [b[0] for b in boxes], "image/object/bbox/ymin": [b[0] for b in boxes],
            "image/object/bbox/xmax": [b[1] for b in boxes], "image/object/bbox/ymax": [b[1] for b in boxes],
        }))
    (folder / "train").write_bytes(frames)
    return f"{count} records, {index_with('tfrecord2idx', folder / 'train', folder / 'train.idx')}"


def make_webdataset(root: Path, count: int = 20) -> str:
    folder = root / "db" / "webdataset"
    folder.mkdir(parents=True, exist_ok=True)
    rs = np.random.RandomState(SEED)
    with tarfile.open(folder / "train.tar", "w", format=tarfile.GNU_FORMAT) as tar:
        for i, jpeg in enumerate(_jpegs(count, (256, 320))):
            for ext, data in (("jpg", jpeg), ("cls", str(int(rs.randint(0, 10))).encode())):
                info = tarfile.TarInfo(f"{i:06d}.{ext}")
                info.size, info.mtime = len(data), 0
                tar.addfile(info, io.BytesIO(data))
    return f"{count} samples (jpg, cls), {index_with('wds2idx', folder / 'train.tar', folder / 'train.idx')}"


def write_wav(path: Path, samples: np.ndarray, rate: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.astype("<i2").tobytes())


def speech_like(seconds: float, rate: int, seed: int = SEED) -> np.ndarray:
    """Harmonics of a wandering pitch under a syllable-rate envelope, plus a little noise."""
    rs = np.random.RandomState(seed)
    t = np.arange(int(seconds * rate)) / rate
    pitch = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(pitch) / rate
    voice = sum(np.sin(k * phase) / k for k in range(1, 8))
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 3.1 * t) ** 2
    signal = voice * envelope + 0.05 * rs.randn(t.size)
    return (signal / np.abs(signal).max() * 12000).astype(np.int16)


def make_speech_wav(root: Path) -> str:
    write_wav(root / "db" / "audio" / "wav" / "237-134500-0000.wav", speech_like(3.0, 16000), 16000)
    return "3 s, 16 kHz mono int16"


def ffmpeg_exe() -> str | None:
    try:
        import imageio_ffmpeg
        return imageio_ffmpeg.get_ffmpeg_exe()
    except Exception:
        return shutil.which("ffmpeg")


def write_h264(path: Path, frames: int, size=(180, 320), seed: int = SEED, fps: int = 25) -> None:
    """An H.264 mp4 (what DALI's NVDEC-based video reader decodes) of moving shapes."""
    exe = ffmpeg_exe()
    height, width = size
    path.parent.mkdir(parents=True, exist_ok=True)
    rs = np.random.RandomState(seed)
    background = np.asarray(synthetic_image(rs, height, width))
    raw = bytearray()
    for f in range(frames):
        frame = np.roll(background, 2 * f, axis=1).copy()
        cy, cx = int(height / 2 + height / 3 * np.sin(f / 9)), (4 * f) % width
        frame[max(cy - 12, 0):cy + 12, max(cx - 12, 0):cx + 12] = (255, 255, 255)
        raw += frame.tobytes()
    subprocess.run([exe, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
                    "-s", f"{width}x{height}", "-r", str(fps), "-i", "-", "-c:v", "libx264",
                    "-pix_fmt", "yuv420p", "-g", "25", str(path)], input=bytes(raw), check=True)


def make_videos(root: Path) -> str:
    if ffmpeg_exe() is None:
        return "skipped: no H.264 encoder (pip install imageio-ffmpeg)"
    video = root / "db" / "video"
    write_h264(video / "test_label.mp4", 260, seed=1)
    for label, name in enumerate(("a", "b")):
        write_h264(video / "sintel" / "labelled_videos" / str(label) / f"{name}.mp4", 60, seed=2 + label)
    for i in range(2):
        write_h264(video / "sintel" / "video_files" / f"sintel_{i}.mp4", 60, seed=4 + i)
    write_h264(root / "db" / "optical_flow" / "sintel_trailer" / "sintel_trailer_short.mp4", 40, seed=6)
    return "6 H.264 videos"


GENERATORS = {
    "coco": make_coco,
    "numpy": make_mri_numpy,
    "lmdb": make_caffe_lmdb,
    "recordio": make_recordio,
    "tfrecord": make_tfrecord,
    "webdataset": make_webdataset,
    "audio": make_speech_wav,
    "video": make_videos,
}


def generate(root: Path, only=None) -> dict[str, str]:
    """Write every data set (or those named in ``only``) under ``root``; say what each made."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    return {name: make(root) for name, make in GENERATORS.items() if only is None or name in only}


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="folder to write (use it as DALI_EXTRA_PATH)")
    parser.add_argument("--only", action="append", choices=sorted(GENERATORS))
    args = parser.parse_args(argv)
    for name, what in generate(Path(args.root), args.only).items():
        print(f"{name}: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

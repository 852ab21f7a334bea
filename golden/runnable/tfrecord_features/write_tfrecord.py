"""Write a TFRecord of tf.train.Example records (image/encoded bytes, image/class/label int64) and its
DALI index, in plain Python (protobuf wire format by hand)."""
import os
import struct


def _crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(data):
    crc = _crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):  # a length-delimited field
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _example(jpeg, label):
    image = _field(1, _field(1, jpeg))  # Feature.bytes_list.value
    number = _field(3, _field(1, _varint(label)))  # Feature.int64_list.value (packed)
    entries = _field(1, _field(1, b"image/encoded") + _field(2, image)) + \
        _field(1, _field(1, b"image/class/label") + _field(2, number))
    return _field(1, entries)  # Example.features


def write(images, labels, path, index_path):
    with open(path, "wb") as out, open(index_path, "w") as index:
        for jpeg, label in zip(images, labels):
            data = _example(jpeg, label)
            length = struct.pack("<Q", len(data))
            record = length + struct.pack("<I", _masked(length)) + data + struct.pack("<I", _masked(data))
            index.write(f"{out.tell()} {len(record)}\n")
            out.write(record)

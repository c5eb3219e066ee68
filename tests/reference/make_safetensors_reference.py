#!/usr/bin/env python3
"""Writes tests/reference/sample.safetensors with plain struct + json (no torch, no
safetensors package), following the format spec: an 8-byte little-endian header length,
a JSON header padded with spaces to a multiple of 8, then the raw little-endian data.
tests/core/test_safetensors.cpp checks that Harmonic reads exactly these values.

    python3 tests/reference/make_safetensors_reference.py          # rewrite the sample
    python3 tests/reference/make_safetensors_reference.py FILE     # dump any safetensors file
"""
import json
import os
import struct
import sys

# name -> (dtype, shape, values), in header order. The data order differs on purpose ("b_ints"
# comes first), so a reader must locate each tensor by its data_offsets, not by position.
TENSORS = {
    "weight": ("F32", [2, 3], [1.5, -2.25, 3.0, 0.1, -0.0, 1e-3]),
    "b_ints": ("I64", [4], [-7, 0, 2**40 + 1, 9007199254740993]),  # 2^53 + 1: exact only as int64
    "scale": ("F64", [], [3.141592653589793]),
    "mask": ("BOOL", [3], [True, False, True]),
    "half_bf16": ("BF16", [2], [1.5, -2.0]),  # exactly representable in bfloat16
    "half_f16": ("F16", [2], [0.5, -3.0]),
    "empty": ("F32", [0, 3], []),
}
DATA_ORDER = ["b_ints", "weight", "scale", "mask", "half_bf16", "half_f16", "empty"]
METADATA = {"format": "pt", "producer": "make_safetensors_reference.py"}


def encode(dtype, values):
    if dtype == "F32":
        return struct.pack(f"<{len(values)}f", *values)
    if dtype == "F64":
        return struct.pack(f"<{len(values)}d", *values)
    if dtype == "I64":
        return struct.pack(f"<{len(values)}q", *values)
    if dtype == "BOOL":
        return bytes(1 if v else 0 for v in values)
    if dtype == "F16":
        return struct.pack(f"<{len(values)}e", *values)
    if dtype == "BF16":  # the upper half of the float32 bits (values chosen to be exact)
        return b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:] for v in values)
    raise ValueError(dtype)


def write(path):
    blobs = {name: encode(dt, vals) for name, (dt, _, vals) in TENSORS.items()}
    offsets, pos = {}, 0
    for name in DATA_ORDER:
        offsets[name] = [pos, pos + len(blobs[name])]
        pos += len(blobs[name])
    header = {"__metadata__": METADATA}
    for name, (dt, shape, _) in TENSORS.items():
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": offsets[name]}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in DATA_ORDER:
            f.write(blobs[name])


def dump(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    fmt = {"F32": "f", "F64": "d", "I64": "q", "BOOL": "?", "F16": "e"}
    print("metadata", header.pop("__metadata__", {}))
    for name, info in header.items():
        b, e = info["data_offsets"]
        chunk = data[b:e]
        if info["dtype"] == "BF16":
            vals = [struct.unpack("<f", b"\0\0" + chunk[i:i + 2])[0] for i in range(0, len(chunk), 2)]
        else:
            c = fmt[info["dtype"]]
            vals = list(struct.unpack(f"<{len(chunk) // struct.calcsize(c)}{c}", chunk))
        print(name, info["dtype"], info["shape"], vals)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        dump(sys.argv[1])
    else:
        write(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample.safetensors"))

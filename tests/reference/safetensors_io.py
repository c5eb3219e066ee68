"""A minimal safetensors writer (no safetensors package needed): header, then raw data.
Shared by the reference scripts in this folder."""
import json
import struct

import torch

DTYPES = {torch.float32: ("F32", "f"), torch.float64: ("F64", "d"), torch.int64: ("I64", "q"),
          torch.bool: ("BOOL", "?")}


def save(path, tensors, metadata):
    """tensors: [(name, tensor)] in file order; metadata: a str -> str dict."""
    header, blobs, pos = {"__metadata__": metadata}, [], 0
    for name, t in tensors:
        code, fmt = DTYPES[t.dtype]
        flat = t.detach().contiguous().reshape(-1).tolist()
        blob = struct.pack(f"<{len(flat)}{fmt}", *flat)
        header[name] = {"dtype": code, "shape": list(t.shape), "data_offsets": [pos, pos + len(blob)]}
        blobs.append(blob)
        pos += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))

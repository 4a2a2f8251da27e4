"""Hostile and corrupt checkpoints for webtorch.load, shared by the host tests and Pyodide.

Standard library only. HOSTILE(canary) gives (name, archive bytes, text the error must contain):
each would create the file `canary` if anything in it ran; loading must raise
pickle.UnpicklingError and leave no canary. CORRUPT gives (name, bytes, exception name, text):
files that are not valid checkpoints, which must raise that exception with a clear message.
"""
import io
import os
import pickle
import struct
import zipfile


def archive(pkl, records=(), prefix="archive", byteorder=b"little", compress=False):
    """A torch.save-shaped zip: prefix/data.pkl, byteorder, extra (name, bytes) records, version."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as z:
        z.writestr(f"{prefix}/data.pkl", pkl)
        if byteorder is not None:
            z.writestr(f"{prefix}/byteorder", byteorder)
        for name, data in records:
            z.writestr(f"{prefix}/{name}", data)
        z.writestr(f"{prefix}/version", b"3\n")
    return out.getvalue()


def _global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _str(s):
    data = s.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def _int(v):
    """An int as pickle writes it: BININT within int32, else LONG1."""
    if -(1 << 31) <= v < 1 << 31:
        return b"J" + struct.pack("<i", v)
    data = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(data)]) + data


def _tensor_pickle(storage_type="FloatStorage", key="0", numel=4, size=(4,), stride=(1,), offset=0, location="cpu",
                   metadata=None):
    """A protocol-2 pickle of one _rebuild_tensor_v2 call, as torch writes it (metadata: the dict torch
    adds for a tensor with its negative or conjugate bit set)."""
    def ints(values):
        return b"(" + b"".join(_int(v) for v in values) + b"t"
    extra = b"" if metadata is None else \
        b"}(" + b"".join(_str(k) + (b"\x88" if v else b"\x89") for k, v in metadata.items()) + b"u"
    return (b"\x80\x02" + _global("torch._utils", "_rebuild_tensor_v2") + b"(" +
            b"(" + _str("storage") + _global("torch", storage_type) + _str(key) + _str(location) +
            _int(numel) + b"tQ" + _int(offset) + ints(size) + ints(stride) +
            b"\x89" + _global("collections", "OrderedDict") + b")R" + extra + b"t" + b"R.")


class _Reduce:
    """Pickles as func(*args) (what a malicious __reduce__ does)."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


class _Build:
    """Pickles as cls() then BUILD with state (a __setstate__ / __dict__ update on load)."""

    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return self.cls, (), self.state


def _dumps(obj, protocol=2):
    return pickle.dumps(obj, protocol=protocol)


def hostile(canary):
    """(name, checkpoint bytes, text the UnpicklingError must contain)."""
    touch = f"open({canary!r}, 'w').close()"
    weights = [("data/0", bytes(16))]
    cases = [
        ("reduce-os-system", _dumps(_Reduce(os.system, f"touch {canary}")), "system"),
        ("reduce-eval", _dumps(_Reduce(eval, touch)), "eval"),
        ("reduce-exec", _dumps(_Reduce(exec, touch)), "exec"),
        ("protocol4-stack-global-exec", _dumps(_Reduce(exec, touch), protocol=4), "exec"),
        ("global-builtins-open", _dumps(_Reduce(open, canary, "w")), "open"),
        ("global-builtins-getattr", _dumps(_Reduce(getattr, _Reduce(__import__, "os"), "system")), "getattr"),
        ("nested-reduce-in-ordereddict", _dumps({"w": _Reduce(__import__("collections").OrderedDict,
                                                              [("a", _Reduce(eval, touch))])}), "eval"),
        ("nested-reduce-in-tensor-args", _tensor_pickle()[:-3] + _global("builtins", "eval") + b"(" + _str(touch) +
         b"tR" + b"tR.", "eval"),
        ("build-on-arbitrary-object", _dumps(_Build(_Reduce, {"func": eval})), "_Reduce"),
        ("build-on-tensor", _tensor_pickle()[:-1] + b"}" + _str("_storage") + b"Nsb.", "BUILD"),
        ("build-on-list", b"\x80\x02](" + _str("a") + b"t" + b"}b.", "BUILD"),
        ("build-dunder-on-ordereddict", b"\x80\x02" + _global("collections", "OrderedDict") + b")R}" +
         _str("__class__") + _global("collections", "OrderedDict") + b"sb.", "BUILD"),
        ("reduce-of-non-global", b"\x80\x02" + _str("os.system") + b"(" + _str("x") + b"tR.", "REDUCE"),
        ("newobj-of-arbitrary-class", b"\x80\x02" + _global("subprocess", "Popen") + b")\x81.", "subprocess.Popen"),
        ("inst-opcode", b"(i" + b"os\nsystem\n.", "Unsupported operand"),
        ("persistent-id-outside-archive", archive(_tensor_pickle(key="../../../etc/passwd"), weights),
         "not in the archive"),
        ("persistent-id-unknown-key", archive(_tensor_pickle(key="7"), weights), "not in the archive"),
        ("persistent-id-not-storage", archive(b"\x80\x02(" + _str("module") + _str("os") + b"tQ.", weights),
         "not a storage"),
        ("view-beyond-storage", archive(_tensor_pickle(numel=4, size=(100,)), weights), "beyond its storage"),
        ("bytearray-allocation", b"\x80\x02" + _global("builtins", "bytearray") + b"J\xff\xff\xff\x7f\x85R.",
         "bytearray"),
        ("truncated-pickle", _dumps({"a": [1, 2, 3]})[:-4], "truncated"),
    ]
    return [(name, data if data[:2] == b"PK" else archive(data, weights), text) for name, data, text in cases]


# A legacy (torch < 1.6) checkpoint starts with the pickled magic number 0x1950a86a20f9469cfc6c.
LEGACY_HEAD = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.\x80\x02M\xe9\x03.\x80\x02}q\x00."


def corrupt():
    """(name, bytes, exception class name, text the message must contain)."""
    good = archive(_tensor_pickle(), [("data/0", struct.pack("<4f", 1, 2, 3, 4))])
    flipped = bytearray(good)
    at = good.index(struct.pack("<4f", 1, 2, 3, 4))
    flipped[at] ^= 0xFF
    return [
        ("legacy-format", LEGACY_HEAD, "RuntimeError", "legacy"),
        ("torchscript", archive(b"\x80\x02N.", [("constants.pkl", b"\x80\x02).")]), "RuntimeError", "TorchScript"),
        ("truncated-zip", good[:len(good) // 2], "RuntimeError", "truncated"),
        ("crc-mismatch", bytes(flipped), "RuntimeError", "corrupt"),
        ("big-endian", archive(_tensor_pickle(), [("data/0", struct.pack(">4f", 1, 2, 3, 4))], byteorder=b"big"),
         "RuntimeError", "big-endian"),
        ("unknown-storage-type", archive(_tensor_pickle(storage_type="ComplexHalfStorage"), [("data/0", bytes(32))]),
         "UnpicklingError", "ComplexHalfStorage"),
        ("unsupported-dtype", archive(b"\x80\x02" + _global("torch", "complex32") + b"."), "UnpicklingError",
         "complex32"),
        ("storage-claims-more-bytes", archive(_tensor_pickle(numel=1 << 30), [("data/0", bytes(16))]), "RuntimeError",
         "record size"),
        ("compressed-record", archive(_tensor_pickle(), [("data/0", bytes(16))], compress=True), "RuntimeError",
         "compressed"),
        ("no-data-pkl", _zip_without_pickle(), "RuntimeError", "data.pkl"),
        ("not-a-checkpoint", b"hello, world" * 10, "RuntimeError", "not a PyTorch checkpoint"),
        ("empty", b"", "EOFError", "Ran out of input"),
    ]


def _zip_without_pickle():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("archive/version", b"3\n")
    return out.getvalue()


def check_refused(load, canary):
    """Loads every HOSTILE case with load(bytes); returns the failures (empty when all were refused
    with pickle.UnpicklingError naming the culprit and no canary appeared)."""
    failures = []
    for name, data, text in hostile(canary):
        try:
            load(data)
            failures.append(f"{name}: loaded without error")
        except pickle.UnpicklingError as e:
            if text not in str(e):
                failures.append(f"{name}: message {str(e)!r} lacks {text!r}")
        except Exception as e:  # noqa: BLE001 - any other exception is a failure of the contract
            failures.append(f"{name}: {type(e).__name__}: {e}")
        if os.path.exists(canary):
            failures.append(f"{name}: the canary was created")
            os.remove(canary)
    for name, data, exc_name, text in corrupt():
        try:
            load(data)
            failures.append(f"{name}: loaded without error")
        except Exception as e:  # noqa: BLE001
            if type(e).__name__ != exc_name or text not in str(e):
                failures.append(f"{name}: {type(e).__name__}: {e} (expected {exc_name} with {text!r})")
    return failures


def describe(obj, storage_id, groups=None):
    """obj (torch's or webtorch's) as plain JSON-able data for comparing the two libraries: tensors by
    dtype, shape, stride, offset, values, requires_grad, class and storage (the n-th storage seen, by
    storage_id(t)); containers by type name and items; dtypes and Size by name."""
    groups = {} if groups is None else groups
    kind = type(obj).__name__
    if hasattr(obj, "dtype") and hasattr(obj, "stride"):
        flat = obj.detach().reshape(-1)
        name = str(obj.dtype).split(".")[-1]
        values = (flat.float() if name in ("float16", "bfloat16") else flat).tolist()
        return {"tensor": kind if kind == "Parameter" else "Tensor", "dtype": name, "shape": list(obj.shape),
                "stride": list(obj.stride()), "offset": obj.storage_offset(), "requires_grad": obj.requires_grad,
                "values": [v if v == v else "nan" for v in values],
                "storage": groups.setdefault(storage_id(obj), len(groups))}
    if kind == "dtype":
        return {"dtype_object": str(obj).split(".")[-1]}
    if kind == "Size":
        return {"size": list(obj)}
    if isinstance(obj, dict):
        out = {"dict": kind, "items": [[describe(k, storage_id, groups), describe(v, storage_id, groups)]
                                       for k, v in obj.items()]}
        if getattr(obj, "_metadata", None) is not None:
            out["metadata"] = describe(obj._metadata, storage_id, groups)
        return out
    if isinstance(obj, (list, tuple)):
        return {kind: [describe(x, storage_id, groups) for x in obj]}
    if isinstance(obj, bytes):
        return {"bytes": obj.hex()}
    if isinstance(obj, float) and obj != obj:
        return {"float": "nan"}
    return {kind: obj}

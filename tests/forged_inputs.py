"""Forged inputs for webtorch's readers of outside data, one table per reader, shared by the host tests
(tests/test_forged_inputs.py, which also checks each row's torch outcome against torch 2.13) and
Pyodide (tests/browser/test_serialization_browser.py). Standard library only.

A row says what torch 2.13 does with the input and what webtorch must do: the same, or refuse with a
clear error (stricter), never load other data than torch.
"""
import json
import struct
import zlib

from checkpoint_cases import LEGACY_HEAD, _global, _str, _tensor_pickle, archive

ONE_TO_FOUR = [1.0, 2.0, 3.0, 4.0]
FIVE_TO_EIGHT = [5.0, 6.0, 7.0, 8.0]


def _floats(values):
    return struct.pack(f"<{len(values)}f", *values)


def zip_bytes(members, sizes=None, local_names=None):
    """A stored zip written byte by byte: members [(name bytes, data)]; sizes {index: (stored size,
    uncompressed size)} to put other sizes in the central directory; local_names {index: name} to put
    another name in the local header. Offsets count from the first byte, as torch's writer's do."""
    out, directory = bytearray(), bytearray()
    for i, (name, data) in enumerate(members):
        offset, crc = len(out), zlib.crc32(data)
        stored, size = (sizes or {}).get(i, (len(data), len(data)))
        local = (local_names or {}).get(i, name)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, crc, stored, size, len(local), 0)
        out += local + data
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0x21, crc, stored, size,
                                 len(name), 0, 0, 0, 0, 0, offset) + name
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(directory), len(out), 0)
    return bytes(out + directory + end)


def _members(weights=ONE_TO_FOUR, record=None, before=(), after=(), numel=4):
    """The records of a checkpoint of one float tensor of numel elements over storage data/0."""
    data = _floats(weights) if record is None else record
    return [(b"archive/data.pkl", _tensor_pickle(numel=numel, size=(numel,))), (b"archive/byteorder", b"little"), *before,
            (b"archive/data/0", data), *after, (b"archive/version", b"3\n")]


def _size(args):
    """A checkpoint of torch.Size(args), args pickled as given."""
    return archive(b"\x80\x02" + _global("torch", "Size") + args + b"\x85R.")


def _tensor(metadata=None, **layout):
    return archive(_tensor_pickle(metadata=metadata, **layout), [("data/0", _floats(ONE_TO_FOUR))])


def checkpoints():
    """(name, bytes, what torch loads: a float list, None where it refuses, "other" where it reads bytes
    that are not the record's; what webtorch must do: load the float list, or raise (exception name,
    text of the message))."""
    plain = zip_bytes(_members())
    other = zip_bytes(_members(FIVE_TO_EIGHT))
    longer = zip_bytes(_members(FIVE_TO_EIGHT, after=[(b"archive/extra", bytes(100))]))
    corrupt = ("RuntimeError", "corrupt or truncated checkpoint archive")
    return [
        ("plain", plain, ONE_TO_FOUR, ONE_TO_FOUR),
        ("trailing-bytes", plain + b"trailing bytes", ONE_TO_FOUR, ONE_TO_FOUR),
        # a storage record's length is what its numel says, exactly, before a tensor exists
        ("record-shorter-than-storage", zip_bytes(_members(record=_floats(ONE_TO_FOUR[:2]))), None,
         ("RuntimeError", "record size (8 bytes) does not match expected size (16 bytes")),
        ("record-longer-than-storage", zip_bytes(_members(record=_floats(ONE_TO_FOUR * 2))), None,
         ("RuntimeError", "record size (32 bytes)")),
        ("stored-record-shorter-than-directory", zip_bytes(_members(record=_floats(ONE_TO_FOUR[:2])),
                                                           sizes={2: (8, 16)}), None, corrupt),
        ("record-runs-into-directory", zip_bytes(_members(numel=16), sizes={2: (64, 64)}), "other", corrupt),
        # one file, two readings: torch's reader (miniz) against Python's zipfile
        ("duplicate-storage-name", zip_bytes(_members(after=[(b"archive/data/0", _floats(FIVE_TO_EIGHT))])),
         ONE_TO_FOUR, ("RuntimeError", "two members are named 'archive/data/0'")),
        ("duplicate-pickle-name", zip_bytes(_members() + [(b"archive/data.pkl", b"\x80\x02N.")]), ONE_TO_FOUR,
         ("RuntimeError", "two members are named 'archive/data.pkl'")),
        ("nul-in-name", zip_bytes(_members(before=[(b"archive/data/0\0.bak", _floats(FIVE_TO_EIGHT))])),
         ONE_TO_FOUR, ("RuntimeError", "NUL byte")),
        ("nul-in-only-name", zip_bytes([(n + b"\0" if n.endswith(b"/0") else n, d) for n, d in _members()]), None,
         ("RuntimeError", "NUL byte")),
        ("local-name-differs", zip_bytes(_members(), local_names={2: b"archive/data/1"}), ONE_TO_FOUR,
         ("RuntimeError", "local header does not match")),
        ("two-archives-same-size", plain + other, ONE_TO_FOUR, ("RuntimeError", "two archives concatenated")),
        ("two-archives-second-longer", plain + longer, None, ("RuntimeError", "two archives concatenated")),
        ("two-archives-first-longer", longer + plain, None, ("RuntimeError", "two archives concatenated")),
        ("junk-before-archive", b"JUNK" + plain, None, ("RuntimeError", "not a PyTorch checkpoint")),
        ("local-header-before-archive", b"PK\x03\x04" + bytes(40) + plain, None, corrupt),
        ("legacy-then-archive", LEGACY_HEAD + plain, None, ("RuntimeError", "legacy")),
        # the metadata torch adds to _rebuild_tensor_v2's arguments
        ("negative-bit", _tensor({"neg": True}), [-1.0, -2.0, -3.0, -4.0], [-1.0, -2.0, -3.0, -4.0]),
        ("negative-bit-strided", _tensor({"neg": True}, size=(2,), stride=(2,), offset=1), [-2.0, -4.0],
         [-2.0, -4.0]),  # what torch writes for complex z.conj().imag: a float view of z's storage
        ("empty-metadata", _tensor({}), ONE_TO_FOUR, ONE_TO_FOUR),
        ("negative-bit-false", _tensor({"neg": False}), [-1.0, -2.0, -3.0, -4.0],
         ("UnpicklingError", "metadata")),  # torch sets the bit for any value
        ("conjugate-bit-on-real", _tensor({"conj": True}), None, ("UnpicklingError", "conj")),
        ("unknown-metadata-key", _tensor({"sparse": True}), ONE_TO_FOUR, ("UnpicklingError", "sparse")),
        # a layout torch loads but webtorch's kernels cannot hold (offsets in 32 bits)
        ("empty-view-past-storage", _tensor(size=(0,), offset=1 << 40), [],
         ("UnpicklingError", "beyond the end of its storage")),
        ("size-beyond-int64-in-tensor", _tensor(size=(1 << 64,)), None, ("UnpicklingError", "beyond int64")),
        # loose types: torch.Size's constructor takes ints (a bool as 0 or 1), nothing else
        ("size-of-strings", _size(b"(" + _str("a") + _str("b") + b"t"), None,
         ("UnpicklingError", "torch.Size() takes an iterable of 'int' (item 0 is 'str')")),
        ("size-of-text", _size(_str("ab")), None, ("UnpicklingError", "item 0 is 'str'")),
        ("size-of-floats", _size(b"(G" + struct.pack(">d", 2.0) + b"t"), None, ("UnpicklingError", "'float'")),
        ("size-of-bools", _size(b"(\x88K\x02t"), [1, 2], [1, 2]),
        ("size-by-newobj", archive(b"\x80\x02" + _global("torch", "Size") + b"(" + _str("a") + b"t\x85\x81."), None,
         ("UnpicklingError", "item 0 is 'str'")),
        ("size-beyond-int64", _size(b"(\x8a\x09" + (1 << 64).to_bytes(9, "little") + b"t"), "other",
         ("UnpicklingError", "Overflow")),  # torch loads a Size whose repr raises
    ]


def plain(loaded):
    """A loaded tensor's values, a Size's items, anything else as it is."""
    return loaded.tolist() if hasattr(loaded, "tolist") else list(loaded) if isinstance(loaded, tuple) else loaded


def check_load(load, data, want, devices=("cpu", "webgpu")):
    """The failures of load(data, map_location=device) against a row's want, on each device: it must load
    want's values there, or raise want's exception with want's text."""
    failures = []
    for device in devices:
        try:
            got = load(data, map_location=device)
        except Exception as e:  # noqa: BLE001 - compared with the row
            if isinstance(want, list) or type(e).__name__ != want[0] or want[1] not in str(e):
                failures.append(f"{device}: {type(e).__name__}: {e} (want {want})")
            continue
        values, on = plain(got), getattr(getattr(got, "device", None), "type", device)
        if not isinstance(want, list) or on != device or values != want:
            failures.append(f"{device}: loaded {values!r} on {on} (want {want})")
    return failures


def safetensors_files():
    """(name, bytes, text of webtorch's SafetensorError); the safetensors package refuses each too (the
    host test checks that)."""
    def raw(text, data):
        return struct.pack("<Q", len(text)) + text + data

    def file(header, data=bytes(16)):
        return raw(json.dumps(header).encode(), data)

    entry = {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}
    deep = b"[" * 100_000 + b"]" * 100_000
    loose = "non-negative integers"
    return [
        ("bool-in-shape", file({"x": {**entry, "shape": [True, 4]}}), loose),  # [1, 4]: 16 bytes
        ("bool-shape", file({"x": {**entry, "shape": [True], "data_offsets": [0, 4]}}, bytes(4)), loose),
        ("bool-begin-offset", file({"x": {**entry, "shape": [], "data_offsets": [False, 4]}}, bytes(4)), loose),
        ("bool-end-offset", file({"x": {"dtype": "U8", "shape": [1], "data_offsets": [0, True]}}, bytes(1)), loose),
        ("float-in-shape", file({"x": {**entry, "shape": [4.0]}}), loose),
        ("dtype-not-a-string", file({"x": {**entry, "dtype": ["F32"]}}), "dtype must be a string"),
        ("deep-nesting", raw(b'{"x": ' + deep + b"}", b""), "recursion limit"),
        ("deep-nesting-in-metadata", raw(b'{"__metadata__": {"a": ' + deep + b'}, "x": ' +
                                         json.dumps(entry).encode() + b"}", bytes(16)), "recursion limit"),
    ]


# -- optimizer state dicts: built from a real one, for torch's and webtorch's alike ---------------------
OPTIMIZERS = [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.1}), ("AdamW", {"lr": 0.1, "amsgrad": True}),
              ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True}), ("Adagrad", {"lr": 0.1}),
              ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}), ("RAdam", {}), ("LBFGS", {"lr": 0.5})]
_SCALARS = ("step", "mu_product")


def _copy(state_dict):
    """The state dict's containers copied (its tensors shared), so a forgery leaves the original alone."""
    return {"state": {i: dict(s) for i, s in state_dict["state"].items()},
            "param_groups": [dict(g) for g in state_dict["param_groups"]]}


def _first_tensor_key(state):
    return next(k for k, v in state.items() if k not in _SCALARS and hasattr(v, "shape") and len(v.shape))


def _wrong_shape(sd):
    out = _copy(sd)
    state = out["state"][0]
    key = _first_tensor_key(state)
    state[key] = state[key].reshape(-1)[:1]
    return out


def _bad_last_group(sd):
    out = _copy(sd)
    out["param_groups"][0]["lr"] = 7.0
    out["param_groups"][-1]["params"] = list(out["param_groups"][-1]["params"]) + [99]
    return out


def _state_of(value):
    def forge(sd):
        out = _copy(sd)
        out["state"] = value if not callable(value) else value(out["state"])
        return out
    return forge


def _all_float64(sd):
    out = _copy(sd)
    out["state"][0] = {k: v.double() if hasattr(v, "double") else v for k, v in out["state"][0].items()}
    return out


def _int64_state(sd):
    out = _copy(sd)
    state = out["state"][0]
    key = _first_tensor_key(state)
    state[key] = state[key].long()
    return out


# (name, forgery of a state dict, what torch does, what webtorch does): "loads" (and then steps as torch),
# ("load", exception name) raised by load_state_dict, ("step", exception name) raised by the next step
OPTIMIZER_STATES = [
    ("as-saved", _copy, "loads", "loads"),
    ("wrong-shaped-state", _wrong_shape, ("step", "RuntimeError"), ("load", "RuntimeError")),
    ("bad-last-group", _bad_last_group, ("load", "ValueError"), ("load", "ValueError")),
    ("fewer-groups", lambda sd: {**_copy(sd), "param_groups": []}, ("load", "ValueError"), ("load", "ValueError")),
    ("state-not-a-dict", _state_of([1, 2]), ("load", "AttributeError"), ("load", "AttributeError")),
    ("param-state-not-a-dict", _state_of(lambda s: {**s, 0: 5}), "varies", ("load", "TypeError")),
    ("unknown-index-kept", _state_of(lambda s: {**s, 99: {"note": "kept"}}), "loads", "loads"),
    ("float64-state", _all_float64, "loads", "loads"),
    ("int64-state", _int64_state, "loads", "loads"),
    ("no-state-key", lambda sd: {"param_groups": _copy(sd)["param_groups"]}, ("load", "KeyError"),
     ("load", "KeyError")),
]


# -- Module.load_state_dict: a model's state dict with forged entries -------------------------------------
def module_and_state(lib):
    """A small model (Linear, BatchNorm1d with its 0-d num_batches_tracked) of known values and another
    full state dict for it."""
    model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
    start, state = ({k: (lib.ones(v.shape) * sign * (i + 2)).to(v.dtype) for i, (k, v) in
                     enumerate(model.state_dict().items())} for sign in (-1, 1))
    model.load_state_dict(start)
    return model, state


def _replacing(**entries):
    def forge(lib, state):
        return {**state, **{k.replace("__", "."): v(lib) if callable(v) else v for k, v in entries.items()}}
    return forge


# (name, forgery(lib, state) -> what is passed to load_state_dict): torch's outcome is webtorch's
MODULE_STATES = [
    ("none-value", _replacing(**{"0__weight": None})),
    ("str-value", _replacing(**{"0__bias": "abc"})),
    ("list-value", _replacing(**{"0__weight": [[1.0, 2.0]] * 3})),
    ("int-for-0d-buffer", _replacing(**{"1__num_batches_tracked": 5})),
    ("one-element-for-0d-buffer", _replacing(**{"1__num_batches_tracked": lambda lib: lib.tensor([7])})),
    ("size-mismatch", _replacing(**{"1__running_mean": lambda lib: lib.zeros(4)})),
    ("everything-at-once", lambda lib, state: {**{k: v for k, v in state.items() if k != "1.weight"},
                                                "0.weight": None, "0.bias": lib.zeros(2), "extra": lib.ones(1)}),
    ("not-a-mapping", lambda lib, state: list(state.items())),
]


# -- torch.tensor of sequences whose __len__ and iteration disagree ----------------------------------------
class _LenSays(list):
    """A list whose __len__ says `claim` whatever it holds."""
    claim = 0

    def __len__(self):
        return self.claim


def _len_says(claim, items, base=_LenSays):
    return type(f"LenSays{claim}", (base,), {"claim": claim})(items)


class _IndexOnly:
    """A sequence by __len__ and __getitem__ only (iterated through __getitem__ until IndexError)."""

    def __init__(self, items, claim=None):
        self.items, self.claim = items, len(items) if claim is None else claim

    def __len__(self):
        return self.claim

    def __getitem__(self, i):
        return self.items[i]


class _IterOwn(list):
    """A list whose iteration gives other items than its storage (torch takes the iteration's)."""

    def __iter__(self):
        return iter([7.0, 8.0])


# (name, data builder, where webtorch is stricter: {dtype given: the exception it raises}): elsewhere
# torch.tensor(data) and torch.tensor(data, dtype=float32) raise or return as torch's
SEQUENCES = [
    ("len-more-than-items", lambda: _len_says(5, [1.0, 2.0]), {}),
    ("len-huge", lambda: _len_says(10 ** 12, [1.0, 2.0]), {True: "ValueError"}),  # torch allocates 10**12 first
    ("len-fewer-than-items", lambda: _len_says(1, [1.0, 2.0]), {}),
    ("len-zero", lambda: _len_says(0, [1.0, 2.0]), {False: "ValueError", True: "ValueError"}),  # torch: empty
    ("nested-first", lambda: [_len_says(5, [1.0, 2.0]), [3.0, 4.0]], {}),
    ("nested-last-fewer", lambda: [[3.0, 4.0], _len_says(1, [1.0, 2.0])],
     {False: "ValueError", True: "ValueError"}),  # torch reads only the first element's __len__
    ("index-only-sequence", lambda: _IndexOnly([1.0, 2.0]), {}),
    ("index-only-len-more", lambda: _IndexOnly([1.0, 2.0], claim=4), {}),
    ("nested-index-only", lambda: [_IndexOnly([1, 2]), (3, 4)], {}),
    ("range", lambda: range(3), {}),
    ("iteration-differs", lambda: _IterOwn([1.0, 2.0]), {}),
]


# -- pickles that would loop: refused within webtorch.serialization.MAX_UNPICKLE_STEPS ---------------------
def _nested_pair_tuple(depth):
    """Pickle ops leaving t on the stack: t0 = (), t(k+1) = (tk, tk), both references to one memo entry:
    a few bytes per level, 2**depth tuple nodes for Python's hash to visit."""
    ops = b")q\x00"
    for k in range(depth):
        ops += b"0h" + bytes([k]) + b"h" + bytes([k]) + b"\x86q" + bytes([k + 1])
    return ops


def pathological():
    """(name, checkpoint bytes, text of the UnpicklingError): torch would spend hours hashing each."""
    deep = _nested_pair_tuple(40)
    return [(name, archive(b"\x80\x02" + body + b"."), "pathological pickle") for name, body in [
        ("dict-key", b"}" + deep + b"K\x01s"),
        ("dict-keys-setitems", b"}(" + deep + b"K\x01u"),
        ("set-items", b"\x80\x04\x8f(" + deep + b"\x90"),
        ("set-of-list", _global("builtins", "set") + b"]" + deep + b"a\x85R"),
        ("ordereddict-pairs", _global("collections", "OrderedDict") + b"]" + deep + b"K\x01\x86a\x85R"),
    ]]


def long_pickle(ops):
    """A checkpoint whose pickle runs about `ops` opcodes (None, popped, again and again)."""
    return archive(b"\x80\x02" + b"N0" * (ops // 2) + b"N.")

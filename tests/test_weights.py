"""Bringing weights in: frombuffer, from_numpy / numpy(), as_tensor, and safetensors (webtorch.safetensors
against the reference `safetensors` package and torch 2.13), on "cpu" and "webgpu"."""
import json
import struct
import warnings

import numpy as np
import pytest
import safetensors.torch as reference
import torch

import webtorch
from webtorch import safetensors as st

DTYPES = ["float32", "float16", "bfloat16", "float64", "int32", "int64", "int16", "int8", "uint8", "bool"]


def _values(name, n, seed=0):
    """n random torch values of dtype name, with NaN/inf among the floats."""
    g = torch.Generator().manual_seed(seed)
    if name == "bool":
        return torch.rand(n, generator=g) > 0.5
    if not getattr(torch, name).is_floating_point:
        info = torch.iinfo(torch.int32 if name == "int64" else getattr(torch, name))  # int64: 32 bits on webgpu
        return torch.randint(info.min, info.max, (n,), generator=g, dtype=getattr(torch, name))
    x = torch.randn(n, generator=g) * 100
    if n >= 3:
        x[:3] = torch.tensor([float("nan"), float("inf"), -float("inf")])
    return x.to(getattr(torch, name))


def _same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    a = torch.tensor(ours.cpu().tolist(), dtype=theirs.dtype).reshape(theirs.shape)
    torch.testing.assert_close(a, theirs, rtol=0, atol=0, equal_nan=True)


# -- frombuffer ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("count,offset", [(-1, 0), (3, 0), (2, 8), (-1, 8)])
def test_frombuffer_matches_torch_and_shares_memory(name, count, offset):
    values = _values(name, 16)
    raw = bytearray((values.view(torch.int16) if name == "bfloat16" else values).numpy().tobytes())
    ours = webtorch.frombuffer(raw, dtype=getattr(webtorch, name), count=count, offset=offset)
    theirs = torch.frombuffer(bytearray(raw), dtype=getattr(torch, name), count=count, offset=offset)
    _same(ours, theirs)
    if name not in ("float16", "bfloat16"):  # kept as float32 on the host: a copy
        ours[0] = 1
        expect = torch.frombuffer(raw, dtype=getattr(torch, name), count=count, offset=offset)
        assert expect[0].item() == 1  # the write went into the buffer
        raw[offset:offset + ours.element_size()] = bytes(ours.element_size())
        assert ours[0].item() == 0  # and a write into the buffer shows in the tensor


def test_frombuffer_of_typed_memoryview_and_readonly_bytes():
    view = memoryview(bytearray(struct.pack("<2f", 1.5, -2.0))).cast("f")
    assert webtorch.frombuffer(view, dtype=webtorch.int32).tolist() == list(struct.unpack("<2i", view.tobytes()))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        t = webtorch.frombuffer(b"\x00\x00\xc0\x3f", dtype=webtorch.float32)
    assert t.tolist() == [1.5]
    with pytest.raises((ValueError, TypeError)):  # read-only memory: no silent write
        t.add_(1)


@pytest.mark.parametrize("args", [
    (b"", {}), (b"abcd", {"offset": 4}), (b"abcde", {}), (bytearray(8), {"count": 3}),
    (bytearray(8), {"offset": -1}), (bytearray(8), {"count": 0}), ([1, 2], {}),
])
def test_frombuffer_errors_match_torch(args):
    data, kwargs = args
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            torch.frombuffer(data, dtype=torch.float32, **kwargs)
        with pytest.raises(Exception) as ours:
            webtorch.frombuffer(data, dtype=webtorch.float32, **kwargs)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


# -- numpy --------------------------------------------------------------------------------------
ARRAYS = {
    "contiguous": lambda: np.arange(12, dtype=np.float32).reshape(3, 4),
    "strided": lambda: np.arange(24, dtype=np.float32).reshape(4, 6)[1::2, ::3],
    "transposed": lambda: np.arange(6, dtype=np.int64).reshape(2, 3).T,
    "broadcast": lambda: np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3)),
    "0-d": lambda: np.array(2.5, dtype=np.float32),
    "empty": lambda: np.zeros((2, 0, 3), dtype=np.float32),
    "bool": lambda: np.array([[True, False, True]]),
    "float16": lambda: np.array([1.5, 65504, np.inf, np.nan], dtype=np.float16),
}


@pytest.mark.parametrize("make", ["from_numpy", "tensor", "as_tensor"])
@pytest.mark.parametrize("kind", ARRAYS)
def test_from_numpy_matches_torch(kind, make):
    a = ARRAYS[kind]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcast view is read-only (both libraries warn)
        ours, theirs = getattr(webtorch, make)(a), getattr(torch, make)(a)
    _same(ours, theirs)  # "empty": tensor() gave (2, 0) (the array's nested lists end at the zero-length dim)
    if make == "from_numpy" and a.size and a.dtype != np.float16:
        assert ours.stride() == theirs.stride()
        assert np.shares_memory(ours.numpy(), a)


def test_from_numpy_and_numpy_share_memory_both_ways():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1::2]
    t = webtorch.from_numpy(a)
    t.mul_(2)
    assert a.tolist() == [[2.0, 6.0], [10.0, 14.0], [18.0, 22.0]]
    a[0, 0] = -1
    assert t[0, 0].item() == -1
    n = t.numpy()
    n[2, 1] = 7
    assert t[2, 1].item() == 7 and a[2, 1] == 7
    x = webtorch.arange(6.0).reshape(2, 3).t()
    assert x.numpy().strides == torch.arange(6.0).reshape(2, 3).t().numpy().strides
    x.numpy()[0, 1] = 9
    assert x[0, 1].item() == 9


@pytest.mark.parametrize("make,call", [
    (lambda lib: lib.ones(2, requires_grad=True), lambda lib, x: x.numpy()),
    (lambda lib: np.arange(6).reshape(2, 3)[:, ::-1], lambda lib, x: lib.from_numpy(x)),
    (lambda lib: np.array(["a"]), lambda lib, x: lib.from_numpy(x)),
    (lambda lib: [1], lambda lib, x: lib.from_numpy(x)),
    (lambda lib: np.zeros(2, np.float32).view(np.dtype(">f4")), lambda lib, x: lib.from_numpy(x)),
])
def test_numpy_errors_match_torch(make, call):
    with pytest.raises(Exception) as theirs:
        call(torch, make(torch))
    with pytest.raises(Exception) as ours:
        call(webtorch, make(webtorch))
    assert type(ours.value) is type(theirs.value)
    if "str_" not in str(theirs.value):  # torch lists types webtorch lacks
        assert str(ours.value) == str(theirs.value)


def test_numpy_of_webgpu_tensor_raises_like_torch_on_cuda():
    with pytest.raises(TypeError, match="Use Tensor.cpu"):
        webtorch.ones(2, device="webgpu").numpy()
    assert webtorch.ones(2, device="webgpu", requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]


def test_as_tensor_shares_when_it_can():
    a = np.zeros(3, dtype=np.float32)
    webtorch.as_tensor(a)[0] = 5
    webtorch.as_tensor(a, dtype=webtorch.float16)[1] = 7  # a converted copy
    assert a.tolist() == [5.0, 0.0, 0.0]
    g = webtorch.as_tensor(a, device="webgpu")
    assert g.device.type == "webgpu" and g.tolist() == [5.0, 0.0, 0.0]
    assert webtorch.as_tensor(np.int32(4)).tolist() == 4 and webtorch.as_tensor(np.int32(4)).dtype == webtorch.int32


# -- safetensors --------------------------------------------------------------------------------
def _state(lib, seed=0):
    """One tensor of every dtype and kind: random values, 0-d, empty, with NaN/inf."""
    out = {f"t_{name}": _values(name, 7, seed).reshape(7, 1) for name in DTYPES}
    out["scalar"] = torch.tensor(-3.25)
    out["empty"] = torch.zeros(2, 0, 3)
    out["layer.0.weight"] = torch.randn(5, 4, generator=torch.Generator().manual_seed(seed))
    if lib is torch:
        return out
    return {k: _to_webtorch(v) for k, v in out.items()}


def _to_webtorch(t):
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16
        return webtorch.frombuffer(bytearray(t.view(torch.int16).numpy().tobytes()), dtype=webtorch.bfloat16
                                   ).reshape(tuple(t.shape))
    return webtorch.from_numpy(t.numpy().copy())


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_safetensors_written_by_reference_load_in_webtorch(device, tmp_path):
    theirs = _state(torch)
    data = reference.save(theirs, metadata={"format": "pt", "note": "x"})
    path = tmp_path / "model.safetensors"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float64 -> float32 on webgpu
        loads = [st.load(data, device=device), st.load_file(str(path), device=device), st.load_file(path, device)]
    for ours in loads:
        assert sorted(ours) == sorted(theirs)
        for k in theirs:
            assert ours[k].device.type == device
            if device == "webgpu" and theirs[k].dtype == torch.float64:
                assert ours[k].dtype == webtorch.float32  # no float64 on the GPU (docs/limits.md): float32, with a warning
                continue
            _same(ours[k], theirs[k])
    with st.safe_open(data, framework="pt", device=device) as f:
        assert f.keys() == sorted(theirs) and f.metadata() == {"format": "pt", "note": "x"}
        _same(f.get_tensor("layer.0.weight"), theirs["layer.0.weight"])
        with pytest.raises(st.SafetensorError, match="does not contain tensor nope"):
            f.get_tensor("nope")


def test_safetensors_written_by_webtorch_equal_the_reference_bytes(tmp_path):
    ours, theirs = _state(webtorch, 1), _state(torch, 1)
    ours["gpu"] = webtorch.arange(6.0, device="webgpu").reshape(2, 3)
    theirs["gpu"] = torch.arange(6.0).reshape(2, 3)
    data = st.save(ours, metadata={"format": "pt"})
    assert data == reference.save(theirs, metadata={"format": "pt"})
    st.save_file(ours, tmp_path / "a.safetensors")
    loaded = reference.load_file(tmp_path / "a.safetensors")
    for k in theirs:
        _same(ours[k], loaded[k])


def test_safetensors_cpu_tensors_are_writable_copies():
    data = reference.save({"w": torch.ones(3)})
    t = st.load(data)["w"]
    t.add_(1)
    assert t.tolist() == [2.0, 2.0, 2.0]


def test_minilm_checkpoint_loads_like_reference():
    import pathlib
    path = pathlib.Path(__file__).parents[1] / ".cache" / "minilm" / "model.safetensors"
    ours, theirs = st.load_file(path), reference.load_file(path)
    assert sorted(ours) == sorted(theirs) and len(ours) > 100
    for k in ("embeddings.word_embeddings.weight", "embeddings.position_ids", "encoder.layer.5.output.dense.bias"):
        assert torch.equal(torch.from_numpy(ours[k].numpy()), theirs[k])


def _file(header, data=b"", raw_header=None):
    raw = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + data


F32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
BAD_FILES = {
    "too short": (b"\x01\x00", "header too small"),
    "header larger than the file": (struct.pack("<Q", 1000) + b"{}", "invalid header length"),
    "header over the limit": (struct.pack("<Q", 200_000_000) + b"{}", "header too large"),
    "not json": (_file(None, raw_header=b"{nope"), "invalid header"),
    "not an object start": (_file(None, raw_header=b"[1]"), "invalid header start"),
    "unknown dtype": (_file({"a": {**F32, "dtype": "Q7"}}, bytes(8)), "unknown safetensors dtype 'Q7'"),
    "unsupported dtype": (_file({"a": {**F32, "dtype": "C64"}}, bytes(8)), "does not support"),
    "wrong length": (_file({"a": {**F32, "shape": [3]}}, bytes(8)), "12 bytes but its data_offsets span 8"),
    "out of range": (_file({"a": {**F32, "data_offsets": [0, 16]}, }, bytes(8)), "spans|incomplete|span"),
    "overlap": (_file({"a": F32, "b": {**F32, "data_offsets": [4, 12]}}, bytes(12)), "invalid offset for tensor 'b'"),
    "gap": (_file({"a": {**F32, "data_offsets": [4, 12]}}, bytes(12)), "invalid offset for tensor 'a'"),
    "trailing bytes": (_file({"a": F32}, bytes(12)), "metadata incomplete buffer"),
    "missing offsets": (_file({"a": {"dtype": "F32", "shape": [2]}}, bytes(8)), "needs dtype, shape and data_offsets"),
    "negative shape": (_file({"a": {**F32, "shape": [-2]}}, bytes(8)), "non-negative"),
    "metadata not strings": (_file({"__metadata__": {"a": 1}}), "__metadata__"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_bad_safetensors_files_raise_clear_errors(case, tmp_path):
    data, message = BAD_FILES[case]
    with pytest.raises(st.SafetensorError, match=message):
        st.load(data)
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(st.SafetensorError, match=message):
        st.load_file(path)
    if case not in ("unsupported dtype",):  # the reference refuses them too
        with pytest.raises(Exception):
            reference.load(data)


def test_save_refuses_what_the_reference_refuses():
    base = webtorch.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match="share memory"):
        st.save({"a": base, "b": base[0]})
    with pytest.raises(ValueError, match="non contiguous"):
        st.save({"a": base.t()})
    with pytest.raises(ValueError, match="expected torch.Tensor"):
        st.save({"a": [1.0]})
    with pytest.raises(ValueError, match="metadata"):
        st.save({"a": base}, metadata={"a": 1})


# -- weights by URL -----------------------------------------------------------------------------
@pytest.fixture
def weights_server(tmp_path):
    """A local http.server over tmp_path/www that counts the GETs of each path."""
    import functools
    import http.server
    import threading
    www = tmp_path / "www"
    www.mkdir()
    hits = {}

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            hits[self.path] = hits.get(self.path, 0) + 1
            return super().do_GET()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", www, hits
    server.shutdown()
    server.server_close()


def test_load_state_dict_from_url_downloads_once_and_caches_on_disk(weights_server, tmp_path, capsys):
    import hashlib
    url, www, hits = weights_server
    tensors = {"w": torch.randn(4, 3), "n": torch.arange(3)}
    data = reference.save(tensors)
    name = f"model-{hashlib.sha256(data).hexdigest()[:8]}.safetensors"
    (www / name).write_bytes(data)
    model_dir = tmp_path / "hub"
    for device in ("cpu", "webgpu", "cpu"):
        sd = webtorch.hub.load_state_dict_from_url(f"{url}/{name}", model_dir=str(model_dir), map_location=device,
                                                   check_hash=True)
        assert sd["w"].device.type == device and sd["w"].tolist() == tensors["w"].tolist()
        assert sd["n"].tolist() == [0, 1, 2]
    assert hits == {f"/{name}": 1}  # the later calls read the cached file
    assert "Downloading" in capsys.readouterr().err
    webtorch.hub.set_dir(str(tmp_path / "torch_home"))
    try:
        sd = webtorch.hub.load_state_dict_from_url(f"{url}/{name}", file_name="renamed.safetensors", progress=False)
        assert (tmp_path / "torch_home" / "checkpoints" / "renamed.safetensors").exists() and "w" in sd
    finally:
        webtorch.hub._hub_dir = None


def test_load_state_dict_from_url_checks_the_hash_like_torch_hub(weights_server, tmp_path):
    url, www, _ = weights_server
    (www / "model-0123abcd.safetensors").write_bytes(reference.save({"w": torch.ones(2)}))
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "0123abcd"'):
        webtorch.hub.load_state_dict_from_url(f"{url}/model-0123abcd.safetensors", model_dir=str(tmp_path),
                                              check_hash=True, progress=False)
    assert not list(tmp_path.glob("*.safetensors"))  # nothing half-written stays in the cache
    import urllib.error
    with pytest.raises(urllib.error.HTTPError):
        webtorch.hub.load_state_dict_from_url(f"{url}/missing.safetensors", model_dir=str(tmp_path), progress=False)

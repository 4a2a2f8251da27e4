"""Bringing weights in, inside Pyodide: frombuffer / from_js (a JS buffer straight to the GPU), safetensors
written by the reference package on the host, and all-MiniLM-L6-v2 end to end against host PyTorch."""
import importlib.util
import json
from pathlib import Path

import pytest
import safetensors.torch as reference
import torch

from browser_errors import PyodideError

pytestmark = pytest.mark.webgpu
REPO = Path(__file__).resolve().parents[2]
DIR = "/tmp/webtorch_tests"
MINILM = REPO / ".cache" / "minilm"
SENTENCES = ["A man is eating food.", "Hello!"]  # few and short: SwiftShader is a CPU


def test_from_js_uploads_a_js_buffer_to_the_gpu(py):
    r = py.run(
        "import js, webtorch as torch\n"
        "a = js.Float32Array.new([1.5, -2, 3.25, 1e30])\n"
        "g = torch.from_js(a)\n"                                  # Float32Array: float32, on webgpu
        "c = torch.from_js(a.buffer, torch.int32, device='cpu')\n"  # the bytes, reinterpreted, copied once
        "i = torch.from_js(js.Uint8Array.new([1, 0, 0, 0, 255, 255, 255, 255]).subarray(4), torch.int32)\n"
        "f = torch.frombuffer(a, dtype=torch.float32, offset=4, count=2)\n"
        "try:\n"
        "    torch.from_js(js.Uint8Array.new(3), torch.float32)\n"
        "    err = None\n"
        "except ValueError as e:\n"
        "    err = str(e)\n"
        "[str(g.device), g.tolist(), c.tolist(), str(i.device), i.tolist(), f.tolist(), err]")
    assert r[0] == "webgpu:0" and r[1] == torch.tensor([1.5, -2, 3.25, 1e30]).tolist()
    assert r[2] == torch.tensor([1.5, -2, 3.25, 1e30]).view(torch.int32).tolist()
    assert r[3:6] == ["webgpu:0", [-1], [-2.0, 3.25]]
    assert "not a multiple of the element size" in r[6]


def test_frombuffer_and_numpy_free_paths_in_pyodide(py_page):
    r = py_page.run(
        "import webtorch as torch, struct\n"
        "b = bytearray(struct.pack('<3i', 1, -2, 3))\n"
        "t = torch.frombuffer(b, dtype=torch.int32)\n"
        "t[0] = 7\n"                                      # shares the bytearray, as in PyTorch
        "[t.tolist(), list(struct.unpack('<3i', b)), torch.frombuffer(b, dtype=torch.int32).to('webgpu').tolist()]")
    assert r == [[7, -2, 3], [7, -2, 3], [7, -2, 3]]


def _reference_file(half=True):
    g = torch.Generator().manual_seed(0)
    tensors = {"w": torch.randn(3, 5, generator=g), "b": torch.tensor([1, -2, 2**31 - 1], dtype=torch.int32),
               "ids": torch.arange(4), "mask": torch.tensor([True, False]), "s": torch.tensor(2.5),
               "e": torch.zeros(0, 2)}
    if half:  # float16 on "webgpu": emulated on SwiftShader (no shader-f16)
        tensors["h"] = torch.tensor([0.5, 65504.0]).half()
    tensors["w"][0, :3] = torch.tensor([float("nan"), float("inf"), -float("inf")])
    return tensors, reference.save(tensors, metadata={"format": "pt"})


def test_safetensors_from_the_host_load_and_write_back(py):
    tensors, data = _reference_file()
    py.put_file(f"{DIR}/ref.safetensors", data)
    r = py.run(
        "import webtorch as torch, js\n"
        "from webtorch import safetensors as st\n"
        f"data = open('{DIR}/ref.safetensors', 'rb').read()\n"
        "cpu = st.load(data)\n"
        "js_bytes = js.Uint8Array.new(len(data))\n"
        "js_bytes.assign(data)\n"
        "with st.safe_open(js_bytes.buffer, framework='pt', device='webgpu') as f:\n"  # from JS memory, one by one
        "    gpu = {k: f.get_tensor(k) for k in f.keys()}\n"
        "with st.safe_open(data, framework='pt', device='webgpu') as f:\n"
        "    lazy = [f.keys(), f.metadata(), f.get_tensor('w').tolist()]\n"
        "out = st.save({'x': torch.arange(6.0, device='webgpu').reshape(2, 3), 'k': torch.tensor([1, 2])},\n"
        "              metadata={'by': 'pyodide'})\n"
        "try:\n"
        "    st.load(data[:-1])\n"
        "    bad = None\n"
        "except st.SafetensorError as e:\n"
        "    bad = str(e)\n"
        "import base64, json\n"
        "json.dumps({'cpu': {k: [str(v.dtype), v.tolist()] for k, v in cpu.items()},\n"
        "            'gpu': {k: [str(v.device), v.tolist()] for k, v in gpu.items()},\n"
        "            'lazy': lazy, 'out': base64.b64encode(out).decode(), 'bad': bad})")
    r = json.loads(r.replace("NaN", '"nan"').replace("-Infinity", '"-inf"').replace("Infinity", '"inf"'))

    def expect(t):
        return json.loads(json.dumps(t.tolist()).replace("NaN", '"nan"').replace("-Infinity", '"-inf"')
                          .replace("Infinity", '"inf"'))
    for k, t in tensors.items():
        assert r["cpu"][k] == [f"webtorch.{str(t.dtype).split('.')[1]}", expect(t)], k
        if k in r["gpu"]:
            assert r["gpu"][k] == ["webgpu:0", expect(t)], k
    assert r["lazy"] == [sorted(tensors), {"format": "pt"}, expect(tensors["w"])]
    import base64
    back = reference.load(base64.b64decode(r["out"]))
    assert back["x"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and back["k"].tolist() == [1, 2]
    assert "metadata incomplete buffer" in r["bad"]


def test_hub_async_form_loads_a_fetched_file(py):
    tensors, data = _reference_file(half=False)
    py.put_file(f"{DIR}/ref.safetensors", data)
    r = py.run(
        "import js, webtorch as torch\n"
        "from pyodide.ffi import to_js\n"
        f"data = open('{DIR}/ref.safetensors', 'rb').read()\n"
        "url = js.URL.createObjectURL(js.Blob.new(to_js([data])))\n"  # a blob: URL is fetched, never cached
        "sd = await torch.hub.load_state_dict_from_url_async(url, map_location='webgpu', file_name='ref.safetensors')\n"
        "try:\n"
        "    torch.hub.load_state_dict_from_url(url + 'x', file_name='x.safetensors')\n"
        "    err = None\n"
        "except OSError as e:\n"
        "    err = str(e)\n"
        "[sd['w'].device.type, sd['b'].tolist(), sd['ids'].tolist(), err]")
    assert r[:3] == ["webgpu", [1, -2, 2**31 - 1], [0, 1, 2, 3]]
    assert "downloading blob:" in r[3] and "failed" in r[3]


# -- all-MiniLM-L6-v2 ------------------------------------------------------------------------------
def _minilm_host():
    spec = importlib.util.spec_from_file_location("minilm_host", REPO / "web" / "examples" / "minilm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # `import torch` on the host: real PyTorch
    return module


@pytest.fixture(scope="module")
def minilm_golden():
    if not (MINILM / "model.safetensors").exists():
        pytest.fail("all-MiniLM-L6-v2 missing from .cache/minilm: run scripts/setup.sh", pytrace=False)
    import tokenizers
    tok = tokenizers.Tokenizer.from_file(str(MINILM / "tokenizer.json"))
    tok.no_padding()
    ids = [e.ids for e in tok.encode_batch(SENTENCES)]
    minilm = _minilm_host()
    model = torch.nn.utils.skip_init(minilm.MiniLM, device="cpu").eval()
    model.load_state_dict(minilm.state_dict_from_safetensors((MINILM / "model.safetensors").read_bytes()), assign=True)
    ids_rows, mask = minilm.WordPiece((MINILM / "vocab.txt").read_text()).batch(SENTENCES)
    assert ids_rows == [row + [0] * (len(ids_rows[0]) - len(row)) for row in ids]  # pure-Python WordPiece = tokenizers
    with torch.no_grad():
        emb = model.embed(torch.tensor(ids_rows), torch.tensor(mask))
    return ids, emb


def test_minilm_embeddings_match_host_pytorch(py_page, minilm_golden):
    ids, expected = minilm_golden
    py_page.put_file(f"{DIR}/minilm.py", (REPO / "web" / "examples" / "minilm.py").read_bytes())
    requests = []
    py_page.page.on("request", lambda req: requests.append(req.url) if "model.safetensors" in req.url else None)
    r = py_page.run(
        "import sys, time, importlib, js, webtorch as torch\n"
        "js.eval('globalThis.hubLog = []; globalThis.webtorchProgress = (p) => hubLog.push(p.status + (p.cached ? \\':cached\\' : \\'\\'))')\n"
        "await js.caches.delete('webtorch-hub')\n"
        "url = '/minilm/model.safetensors'\n"
        "first = torch.hub.load_state_dict_from_url(url, map_location='webgpu')\n"   # fetched, into Cache Storage
        "t0 = time.perf_counter()\n"
        "again = torch.hub.load_state_dict_from_url(url, map_location='webgpu')\n"   # from Cache Storage
        "hub_s = time.perf_counter() - t0\n"
        "hub = [sorted(first) == sorted(again), list(js.hubLog), hub_s]\n"
        "del first, again\n"
        f"sys.path.insert(0, '{DIR}') if '{DIR}' not in sys.path else None\n"
        "importlib.invalidate_caches()\n"
        "import minilm\n"
        "buf = await (await js.fetch('/minilm/model.safetensors')).arrayBuffer()\n"  # bytes from the server
        "vocab = await (await js.fetch('/minilm/vocab.txt')).text()\n"
        "t0 = time.perf_counter()\n"
        "model = torch.nn.utils.skip_init(minilm.MiniLM, device='webgpu').eval()\n"
        "model.load_state_dict(minilm.state_dict_from_safetensors(buf, 'webgpu'), assign=True)\n"
        "torch.webgpu.synchronize()\n"
        "load_s = time.perf_counter() - t0\n"
        f"ids, mask = minilm.WordPiece(vocab).batch({SENTENCES!r})\n"
        "with torch.no_grad():\n"
        "    emb = model.embed(torch.tensor(ids, device='webgpu'), torch.tensor(mask, device='webgpu')).tolist()\n"
        "[ids, emb, load_s, time.perf_counter() - t0 - load_s, hub]", timeout=600)
    got_ids, got, load_s, embed_s, hub = r
    print(f"MiniLM in Chromium: weights to the GPU {load_s:.2f} s, embedding {len(SENTENCES)} sentences {embed_s:.2f} s"
          f", again from Cache Storage {hub[2]:.2f} s")
    assert hub[0] and hub[1][0] == "initiate" and hub[1][-2:] == ["done", "done:cached"], hub
    assert len([u for u in requests if u.endswith("/minilm/model.safetensors")]) == 2, requests  # hub once, test once
    assert [[i for i in row if i] for row in got_ids] == ids  # Pyodide's WordPiece = tokenizers
    cosine = torch.nn.functional.cosine_similarity(torch.tensor(got), expected, dim=1)
    assert cosine.min().item() >= 0.9999, cosine

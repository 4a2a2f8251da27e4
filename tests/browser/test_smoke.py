"""Smoke tests: the browser stack webtorch depends on works, in the page and in a worker."""
import pytest

from browser_errors import PyodideError


def test_webtorch_installed_from_local_index(py, project_version):
    # Installed by name with micropip from the local PEP 503 index at fixture init.
    info = py.run(
        "import webtorch, importlib.metadata as md\n"
        "d = md.distribution('webtorch')\n"
        "{'version': webtorch.__version__, 'file': webtorch.__file__,\n"
        " 'url': d.read_text('PYODIDE_URL'), 'source': d.read_text('PYODIDE_SOURCE')}"
    )
    assert info["version"] == project_version, info
    assert "site-packages" in info["file"], info
    # Came from our local index; micropip labels index installs whose sha256 it
    # verified as source "pypi", whatever the index.
    assert info["url"].startswith("http://127.0.0.1:") and "/simple/webtorch/" in info["url"], info
    assert info["source"] == "pypi", info


def test_numpy_is_not_available(py):
    # webtorch must work without numpy inside Pyodide: make sure it isn't there by accident.
    with pytest.raises(PyodideError, match="ModuleNotFoundError"):
        py.run("import numpy")


def test_python_traceback_is_reported(py):
    with pytest.raises(PyodideError) as ei:
        py.run("def f():\n    raise ValueError('boom 123')\nf()")
    msg = str(ei.value)
    assert "Traceback" in msg and "ValueError: boom 123" in msg and f"[{py.mode}]" in msg


def test_results_and_stdout(py):
    assert py.run("'a' + 'b'") == "ab"
    assert py.run("print('hello from', 'pyodide'); 1 + 1") == 2
    assert py.stdout() == "hello from pyodide"
    assert py.run("{'a': [1, 2.5, None, True], 'b': (3,)}") == {"a": [1, 2.5, None, True], "b": [3]}
    assert py.run("x = 1") is None


def test_jspi_run_sync(py):
    r = py.run(
        "import pyodide.ffi, js\n"
        "from pyodide.ffi import run_sync, can_run_sync\n"
        "ok = can_run_sync()\n"
        # A pure-JS promise: a Python lambda handed to setTimeout would be a borrowed
        # proxy, destroyed before the timer fires.
        "p = js.eval('new Promise((resolve) => setTimeout(() => resolve(42), 10))')\n"
        "[ok, run_sync(p)]"
    )
    assert r == [True, 42]


def test_put_file_and_import(py):
    py.put_file("/tmp/webtorch_tests/golden_probe.json", '{"x": [1, 2, 3]}')
    py.put_file("/tmp/webtorch_tests/bin.dat", bytes(range(256)))
    py.put_file("/tmp/webtorch_tests/probe_mod.py", "VALUE = 'probe'\n")
    r = py.run(
        "import json, sys, importlib\n"
        "sys.path.insert(0, '/tmp/webtorch_tests'); importlib.invalidate_caches()\n"
        "import probe_mod\n"
        "[json.load(open('/tmp/webtorch_tests/golden_probe.json'))['x'],\n"
        " open('/tmp/webtorch_tests/bin.dat','rb').read() == bytes(range(256)), probe_mod.VALUE]"
    )
    assert r == [[1, 2, 3], True, "probe"]


@pytest.mark.webgpu
def test_webgpu_adapter(py):
    info = py.run(
        "import js, json\n"
        "from pyodide.ffi import run_sync\n"
        "gpu = getattr(js.navigator, 'gpu', None)\n"
        "assert gpu is not None, 'navigator.gpu missing (not a secure context or WebGPU disabled)'\n"
        "adapter = run_sync(gpu.requestAdapter())\n"
        "assert adapter is not None, 'requestAdapter() returned null'\n"
        "i = adapter.info\n"
        "dev = run_sync(adapter.requestDevice())\n"
        "res = {k: str(getattr(i, k, '')) for k in ('vendor', 'architecture', 'device', 'description')}\n"
        "res['isFallbackAdapter'] = bool(getattr(i, 'isFallbackAdapter', False))\n"
        "res['maxStorageBufferBindingSize'] = int(adapter.limits.maxStorageBufferBindingSize)\n"
        "res['features'] = sorted(str(f) for f in getattr(js.Array, 'from')(adapter.features))\n"
        "res['device'] = res['device'] or 'n/a'\n"
        "res['has_device'] = dev is not None\n"
        "dev.destroy()\n"
        "json.dumps(res)"
    )
    import json
    info = json.loads(info)
    print(f"[{py.mode}] WebGPU adapter.info: {info}")
    assert info["has_device"]
    # webtorch's device asks for every feature its kernels can use that the adapter offers
    wanted = {"shader-f16", "subgroups", "chromium-experimental-subgroup-matrix", "timestamp-query"}
    got = py.run("import webtorch\nwebtorch.webgpu.features()")
    assert set(got) == wanted & set(info["features"]), (got, info["features"])


@pytest.mark.webgpu
def test_webgpu_compute_roundtrip(py):
    # A tiny compute shader end to end (doubles 4 floats), all through JS interop + JSPI.
    r = py.run(
        "import js\n"
        "from pyodide.ffi import run_sync, to_js\n"
        "adapter = run_sync(js.navigator.gpu.requestAdapter())\n"
        "dev = run_sync(adapter.requestDevice())\n"
        "O = lambda **kw: to_js(kw, dict_converter=js.Object.fromEntries)\n"
        "U = js.GPUBufferUsage\n"
        "buf = dev.createBuffer(O(size=16, usage=U.STORAGE | U.COPY_SRC | U.COPY_DST))\n"
        "dev.queue.writeBuffer(buf, 0, js.Float32Array.new(to_js([1.0, 2.0, 3.0, 4.5])))\n"
        "rb = dev.createBuffer(O(size=16, usage=U.MAP_READ | U.COPY_DST))\n"
        "code = '@group(0) @binding(0) var<storage, read_write> x: array<f32>;\\n' \\\n"
        "       '@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) i: vec3u) { x[i.x] = 2.0 * x[i.x]; }'\n"
        "mod = dev.createShaderModule(O(code=code))\n"
        "pipe = dev.createComputePipeline(O(layout='auto', compute=O(module=mod, entryPoint='main')))\n"
        "bg = dev.createBindGroup(O(layout=pipe.getBindGroupLayout(0), entries=[O(binding=0, resource=O(buffer=buf))]))\n"
        "enc = dev.createCommandEncoder()\n"
        "p = enc.beginComputePass(); p.setPipeline(pipe); p.setBindGroup(0, bg); p.dispatchWorkgroups(1); p.end()\n"
        "enc.copyBufferToBuffer(buf, 0, rb, 0, 16)\n"
        "dev.queue.submit([enc.finish()])\n"
        "run_sync(rb.mapAsync(js.GPUMapMode.READ))\n"
        "out = list(js.Float32Array.new(rb.getMappedRange()).to_py())\n"
        "rb.unmap(); dev.destroy()\n"
        "out"
    )
    assert r == [2.0, 4.0, 6.0, 9.0]

"""Hugging Face folders in the browser: a tiny Llama saved by real transformers in shards (tests/hf_tiny.py)
served from the page's origin, loaded by webtorch.hf in Pyodide's worker shard by shard onto WebGPU,
against torch's logits and greedy tokens (also with decode attention split over the cache's rows); and
web/chat.html loading its default model and streaming."""
import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

import hf_tiny
from conftest import open_app_page

pytestmark = pytest.mark.webgpu
REPO = Path(__file__).resolve().parents[2]


def test_sharded_llama_from_the_origin(py_worker, server_url):
    path, reference = hf_tiny.saved("llama")
    url = f"{server_url}/models/tiny/{os.path.basename(path)}/"
    shards = sum(f.endswith(".safetensors") for f in os.listdir(path))
    r = py_worker.run(
        "import webtorch as torch, js\n"
        "from webtorch import hf\n"
        "events = []\n"
        f"model = hf.from_pretrained({url!r}, progress=events.append)\n"
        f"ids = torch.tensor({hf_tiny.PROMPT!r}, device='webgpu')\n"
        "with torch.no_grad():\n"
        "    logits = model(ids).tolist()\n"
        f"tokens = model.generate(ids, max_new_tokens={hf_tiny.NEW_TOKENS}).tolist()\n"
        "from webtorch.hf import _gpu\n"  # the cache's rows split into 16 chunks of 4: decode attention's second form
        "chunk_rows, _gpu.CHUNK_ROWS = _gpu.CHUNK_ROWS, 4\n"
        "try:\n"
        f"    split = model.generate(ids, max_new_tokens={hf_tiny.NEW_TOKENS}, replay=False).tolist()\n"
        "finally:\n"
        "    _gpu.CHUNK_ROWS = chunk_rows\n"
        "cached = [r.url for r in await (await js.caches.open('webtorch-hf')).keys()]\n"
        "[logits, tokens, events[-1], sorted({e['file'] for e in events if e['file']}), cached, split]", timeout=600)
    logits, tokens, done, files, cached, split = r
    expected = reference["logits"]
    assert np.abs(np.array(logits) - expected).max() <= 1e-4 * np.abs(expected).max()
    assert tokens == split == reference["generated"].tolist()
    assert done["status"] == "done" and done["loaded"] == done["total"] > 0
    assert len(files) == shards > 2
    assert sum(u.endswith(".safetensors") and u.startswith(url) for u in cached) == shards  # Cache Storage


def _chat_model():
    spec = importlib.util.spec_from_file_location("build_chat_model", REPO / "scripts" / "build_chat_model.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    if not os.path.exists(os.path.join(build.OUT, "tokenizer.json")):
        build.build(steps=0)  # scripts/setup.sh trains it; untrained is enough to load and stream


def test_chat_page_loads_and_streams(browser, server_url):
    _chat_model()
    page = open_app_page(browser, server_url, "/web/chat.html", 600_000, {"width": 1280, "height": 1000})
    try:
        page.wait_for_function("chatDemo.loaded !== null")
        assert "parameters" in page.inner_text("#model-info")
        page.fill("#max-tokens", "6")
        page.fill("#prompt", "MACBETH. Is this")
        page.click("#generate")
        page.wait_for_function("chatDemo.generations.length > 0")
        result = page.evaluate("chatDemo.generations[0]")
        assert result["tokens"] == 6 and result["tokens_per_s"] > 0
        assert page.inner_text("#output").startswith("MACBETH. Is this")
        assert page.inner_text("#output") == "MACBETH. Is this" + result["text"]
        assert "tokens/s" in page.inner_text("#speed")
        float_bytes = page.evaluate("chatDemo.loaded.bytes")
        # loaded again with int4 weights (quantized as they arrive): 14 linear layers, a smaller model, greedy text
        page.select_option("#quantize", "int4")
        page.click("#load")
        page.wait_for_function("chatDemo.loads === 2")
        info = page.evaluate("chatDemo.loaded")
        assert info["quantize"] == "int4" and info["quantized_linears"] == 14 and info["bytes"] < float_bytes, info
        assert "14 linear layers int4" in page.inner_text("#model-info")
        page.fill("#temperature", "0")
        page.click("#generate")
        page.wait_for_function("chatDemo.generations.length > 1")
        assert page.evaluate("chatDemo.generations[1].tokens") == 6
        assert page.foreign == [] and page.errors == []
    finally:
        page.context.close()

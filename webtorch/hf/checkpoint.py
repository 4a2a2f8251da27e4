"""A Hugging Face model folder, local or at a URL prefix, and its weights streamed into a model shard by shard.

Layout (what save_pretrained writes): config.json, optional generation_config.json, tokenizer files, and
either model.safetensors or model-0000i-of-0000n.safetensors with model.safetensors.index.json
({"weight_map": {name: shard file}}). Only one shard's bytes are in host memory at a time: a local
shard is read tensor by tensor (one tensor's bytes at a time); a shard at a URL is fetched whole (on
CPython into one bytes object; in Pyodide into a JS ArrayBuffer, outside the wasm heap, kept in Cache
Storage "webtorch-hf" for the next visit) and each tensor is uploaded from there to its GPU buffer.
"""
import json
import os
import sys
import urllib.error
import urllib.request

from .. import nn, safetensors
from . import split

CACHE_NAME = "webtorch-hf"  # the browser's Cache Storage bucket
INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"


class Folder:
    """source: a directory path or a URL prefix (http(s)://, file://; in the browser also a path of the
    page's origin such as "/models/tiny/")."""

    def __init__(self, source):
        self.source = str(source).rstrip("/")
        self.is_url = "://" in self.source or (sys.platform == "emscripten" and not os.path.isdir(self.source))

    def where(self, name):
        return f"{self.source}/{name}" if self.is_url else os.path.join(self.source, name)

    def fetch(self, name, progress=None):
        """The file's bytes: bytes on CPython, a JS ArrayBuffer in Pyodide (a local path is read as bytes).
        progress(loaded, total) is called as bytes arrive (in the browser: with the whole file)."""
        if not self.is_url:
            with open(self.where(name), "rb") as f:
                return f.read()
        url = self.where(name)
        if sys.platform == "emscripten":
            from ..backend import driver_browser
            # byte progress goes to the page (globalThis.webtorchProgress, as torch.hub's does) while it arrives
            data = driver_browser.fetch_cached(url, CACHE_NAME, name, None, progress=True)
            if progress is not None:
                progress(data.byteLength, data.byteLength)
            return data
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "webtorch.hf"})) as r:
                total = int(r.headers.get("Content-Length") or 0)
                data, loaded = bytearray(total), 0  # filled in place: the shard is in memory once
                while loaded < total or not total:
                    if loaded == len(data):
                        data.extend(bytes(max(1 << 20, len(data))))  # no Content-Length: grow
                    n = r.readinto(memoryview(data)[loaded:])
                    if not n:
                        break
                    loaded += n
                    if progress is not None:
                        progress(loaded, max(total, loaded))
            del data[loaded:]
            return data
        except urllib.error.URLError as e:
            raise OSError(f"webtorch.hf: cannot read {url}: {e}") from None

    def text(self, name):
        data = self.fetch(name)
        return (bytes(data) if isinstance(data, (bytes, bytearray)) else data.to_bytes()).decode("utf-8")

    def json(self, name, default=None):
        """The parsed JSON file, or default when it is missing (default None: missing raises OSError)."""
        try:
            return json.loads(self.text(name))
        except (OSError, FileNotFoundError):
            if default is not None:
                return default
            raise OSError(f"webtorch.hf: {self.where(name)} not found (is this a Hugging Face model folder?)") \
                from None

    def shards(self):
        """The weight files: the index's shards in order, or the one model.safetensors."""
        index = self.json(INDEX, default={})
        if index:
            return sorted(set(index["weight_map"].values()))
        return [SINGLE]

    def open_shard(self, name, device, progress=None):
        """A safetensors reader of one shard onto device: local files are read tensor by tensor, URLs
        fetched whole."""
        data = self.where(name) if not self.is_url else self.fetch(name, progress)
        return safetensors.safe_open(data, framework="pt", device=device)


def stream_weights(model, folder, device, dtype=None, progress=None, on_module_loaded=None):
    """Loads the folder's shards into model (built on the meta device: parameters assigned, not copied).

    Each tensor goes from the shard's bytes to its own buffer on device (as the checkpoint's dtype, then
    to dtype if given), replacing the meta parameter of that name. progress(event) gets dicts
    {"status": "download" | "weights" | "done", "file", "loaded", "total"} (bytes; "weights" totals
    grow shard by shard). on_module_loaded(name, module) is called once for each module whose own
    parameters have all arrived (quantize-on-load's hook: a layer can be replaced while later shards
    are on their way); a module whose parameters are all shared with another (a tied head) is not.
    Returns (names the checkpoint lacked, names the model does not have)."""
    missing = dict(model.named_parameters())  # shared parameters once, under their first name
    owners, waiting = {}, {}
    for mname, module in model.named_modules():
        for pname, _ in module.named_parameters(recurse=False, remove_duplicate=False):
            full = f"{mname}.{pname}" if mname else pname
            owners[full] = (module, pname)
            if full in missing:
                waiting.setdefault(mname, set()).add(full)
    report = progress or (lambda event: None)
    unexpected, total, loaded = [], 0, 0
    for shard in folder.shards():
        def fetched(done, size, shard=shard):
            report({"status": "download", "file": shard, "loaded": done, "total": size})
        with folder.open_shard(shard, device, fetched) as f:
            names = f.offset_keys()
            total += sum(f.nbytes(name) for name in names)
            for name in names:
                if name not in owners:
                    unexpected.append(name)
                    continue
                module, attr = owners[name]
                loaded += f.nbytes(name)
                if _load_split(model, name, module, attr, f, device, dtype):
                    missing.pop(name, None)
                    waiting.pop(name.rpartition(".")[0], None)  # no hook: the split module replaced it
                    report({"status": "weights", "file": shard, "loaded": loaded, "total": total})
                    continue
                t = _cast(f.get_tensor(name), dtype)
                old = getattr(module, attr)
                if tuple(old.shape) != tuple(t.shape):
                    raise RuntimeError(f"webtorch.hf: {name} has shape {tuple(t.shape)} in {shard} but "
                                       f"{tuple(old.shape)} in the model (does config.json match the weights?)")
                module._parameters[attr] = type(old)(t, requires_grad=old.requires_grad)
                missing.pop(name, None)
                report({"status": "weights", "file": shard, "loaded": loaded, "total": total})
                mname = name.rpartition(".")[0]
                pending = waiting.get(mname)
                if pending is not None:
                    pending.discard(name)
                    if not pending:
                        del waiting[mname]
                        if on_module_loaded is not None:
                            on_module_loaded(mname, module)
    report({"status": "done", "file": None, "loaded": loaded, "total": total})
    return sorted(missing), unexpected


def _cast(t, dtype):
    return t.to(dtype) if dtype is not None and t.is_floating_point() and t.dtype != dtype else t


def _load_split(model, name, module, attr, f, device, dtype):
    """An embedding's or a bias-free linear layer's weight too large for one binding, loaded in row blocks
    into a SplitEmbedding / SplitLinear that replaces the module (webtorch.hf.split); False otherwise."""
    sliced = f.get_slice(name)
    shape = sliced.get_shape()
    kind = split.SplitEmbedding if isinstance(module, nn.Embedding) else \
        split.SplitLinear if isinstance(module, nn.Linear) and module.bias is None else None
    rows = kind and attr == "weight" and split.rows_per_part(shape, dtype or module.weight.dtype, device)
    if not rows:
        return False
    parts = [nn.Parameter(_cast(sliced[a:a + rows], dtype), requires_grad=False) for a in range(0, shape[0], rows)]
    parent, _, child = name.rpartition(".")[0].rpartition(".")
    setattr(model.get_submodule(parent) if parent else model, child, kind(parts))
    return True

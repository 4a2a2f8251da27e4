"""torch.hub's weights by URL: load_state_dict_from_url, download_url_to_file, get_dir, set_dir.

On CPython a file is downloaded once into get_dir()/checkpoints (like torch.hub: $TORCH_HOME/hub,
default ~/.cache/torch/hub), with a text progress bar on stderr. In Pyodide fetch() streams it,
progress goes to globalThis.webtorchProgress when the page or worker defines one (web/worker.js does:
the client's onProgress events), and the file is kept in the browser's Cache Storage ("webtorch-hub"),
so a later page load reads it from there instead of the network. The sync form needs JSPI (Python
entered through runPythonAsync); load_state_dict_from_url_async works everywhere.

A ".safetensors" file loads with webtorch.safetensors (on "webgpu" straight from the fetched JS
buffer to the GPU); anything else with webtorch.load (torch.save's format).
"""
import hashlib
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
from urllib.parse import urlparse  # noqa: F401  (torch.hub's name; timm imports it from there)
import urllib.request

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url",
           "load_state_dict_from_url_async", "set_dir"]

try:
    from tqdm import tqdm  # torch.hub's progress bar class (torch.utils.model_zoo re-exports it)
except ImportError:
    class tqdm:
        """torch.hub's stand-in when the tqdm package is missing: counts, prints nothing."""

        def __init__(self, total=None, disable=False, unit=None, unit_scale=False, unit_divisor=1024, **kwargs):
            self.total, self.n = total, 0

        def update(self, n):
            self.n += n

        def close(self):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")  # torch.hub's: the hash prefix in "name-<sha256 prefix>.ext"
CACHE_NAME = "webtorch-hub"  # the browser's Cache Storage bucket
_hub_dir = None


ENV_TORCH_HOME, ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR = "TORCH_HOME", "XDG_CACHE_HOME", "~/.cache"


def _get_torch_home():
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME,
                                                                               DEFAULT_CACHE_DIR), "torch")))


def get_dir():
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def _no_hub_repositories(*args, **kwargs):
    raise NotImplementedError("webtorch: torch.hub.load/list/help (running a GitHub repository's hubconf.py) are "
                              "not supported; load weights with torch.hub.load_state_dict_from_url")


load = list = help = _no_hub_repositories  # noqa: A001 (torch.hub's names)


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def _in_browser():
    return sys.platform == "emscripten"


def _progress_bar(loaded, total, out=sys.stderr):
    if total:
        done = 40 * loaded // total
        out.write(f"\r[{'#' * done}{'.' * (40 - done)}] {loaded / 2**20:.1f}/{total / 2**20:.1f} MiB")
    else:
        out.write(f"\r{loaded / 2**20:.1f} MiB")
    out.flush()


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """The URL's bytes into file dst (written beside it, then renamed), checking the sha256 prefix if given."""
    dst = os.path.expanduser(dst)
    with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "webtorch.hub"})) as response:
        total = int(response.headers.get("Content-Length") or 0)
        sha256 = hashlib.sha256()
        tmp = tempfile.NamedTemporaryFile(delete=False, dir=os.path.dirname(dst) or ".")
        try:
            loaded = 0
            while chunk := response.read(1 << 20):
                tmp.write(chunk)
                sha256.update(chunk)
                loaded += len(chunk)
                if progress:
                    _progress_bar(loaded, total)
            if progress:
                sys.stderr.write("\n")
            tmp.close()
            if hash_prefix is not None:
                digest = sha256.hexdigest()
                if digest[:len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
            shutil.move(tmp.name, dst)
        finally:
            tmp.close()
            if os.path.exists(tmp.name):
                os.remove(tmp.name)


def _file_name(url, file_name):
    return file_name or os.path.basename(urllib.parse.urlparse(url).path)


def _hash_prefix(name, check_hash):
    if not check_hash:
        return None
    match = HASH_REGEX.search(name)
    if match is None:
        raise ValueError(f"check_hash=True needs the file name to hold the sha256 prefix ('name-<hash>.ext'): {name!r}")
    return match.group(1)


def _device(map_location):
    if map_location is None:
        return "cpu"
    if callable(map_location) or isinstance(map_location, dict):
        raise TypeError("a .safetensors file takes map_location as a device (str or torch.device)")
    return str(map_location)


def _load(data, name, map_location, weights_only):
    """data: a path, a bytes-like object or a JS ArrayBuffer."""
    from . import safetensors
    if name.endswith(".safetensors"):
        return safetensors.load_file(data, _device(map_location)) if isinstance(data, str) else \
            safetensors.load(data, _device(map_location))
    load = getattr(sys.modules[__package__], "load", None)
    if load is None:
        raise NotImplementedError(f"{name}: loading torch.save files needs webtorch.load, which this webtorch lacks")
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        data = data.to_bytes()  # a JS ArrayBuffer: one copy into Python for the unpickler
    return load(data, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=True):
    """The object saved at url (a state_dict), downloaded once and then read from the cache."""
    name = _file_name(url, file_name)
    if _in_browser():
        from .backend import driver_browser
        data = driver_browser.fetch_cached(url, CACHE_NAME, name, _hash_prefix(name, check_hash), progress)
        return _load(data, name, map_location, weights_only)
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    cached_file = os.path.join(model_dir, name)
    if not os.path.exists(cached_file):
        if progress:
            sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        download_url_to_file(url, cached_file, _hash_prefix(name, check_hash), progress=progress)
    return _load(cached_file, name, map_location, weights_only)


async def load_state_dict_from_url_async(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                                         file_name=None, weights_only=True):
    """load_state_dict_from_url without JSPI: awaits the download in the browser (on CPython: the sync form)."""
    if not _in_browser():
        return load_state_dict_from_url(url, model_dir, map_location, progress, check_hash, file_name, weights_only)
    from .backend import driver_browser
    name = _file_name(url, file_name)
    data = await driver_browser.fetch_cached_async(url, CACHE_NAME, name, _hash_prefix(name, check_hash), progress)
    return _load(data, name, map_location, weights_only)

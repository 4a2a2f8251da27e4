#!/usr/bin/env python3
"""Tiny local static server for webtorch's browser tests and demos.

Routes (all bound to 127.0.0.1; WebGPU needs a secure context, which
http://127.0.0.1 is and file:// is not):

  /pyodide/...  -> node_modules/pyodide/ (npm pyodide@314.0.7)
  /simple/      -> PEP 503 index (and PEP 691 JSON on request) built on the fly
                   from dist/*.whl, names normalized, with #sha256= fragments
  /simple/<project>/<file>.whl -> the wheel itself from dist/
  /wheels/...   -> pure wheels downloaded by scripts/setup.sh (.cache/wheels/);
                   /wheels/index.json lists them
  /             -> redirect to /web/index.html (the demo); /dev lists the other pages
  /web/...      -> web/
  /tests/...    -> tests/
  /bench/...    -> bench/ (benchmark page; bench/run.py)
  /lite/...     -> .cache/jupyterlite/site/ (JupyterLite; scripts/build_jupyterlite.py)
  /text/...     -> .cache/text/ (the play web/gpt.html learns; scripts/setup.sh)
  /minilm/...   -> .cache/minilm/ (all-MiniLM-L6-v2's model.safetensors, vocab.txt; scripts/setup.sh)
  /docs/...     -> build/docs/html/ (the documentation site; python scripts/build_docs.py)
  /models/...   -> .cache/models/ (HF-layout model folders: chat-tiny/ of web/chat.html, written by
                   scripts/build_chat_model.py; tiny/ of the tests, tests/hf_tiny.py)

Use from Python:   server, base_url = start_server(); ...; server.shutdown()
Or run:            python scripts/serve.py [--port N]
"""
from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import posixpath
import re
import sys
import threading
import urllib.parse
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

MIME = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/octet-stream",
    ".zip": "application/zip",
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".py": "text/x-python; charset=utf-8",
    ".map": "application/json",
    ".ts": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".wgsl": "text/plain; charset=utf-8",
    ".css": "text/css",
}


def normalize(name: str) -> str:
    """PEP 503 project name normalization."""
    return re.sub(r"[-_.]+", "-", name).lower()


_sha_cache: dict[tuple[str, int, int], str] = {}


def _sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _sha_cache:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _sha_cache[key] = h.hexdigest()
    return _sha_cache[key]


def _projects(dist: Path) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for whl in sorted(dist.glob("*.whl")):
        out.setdefault(normalize(whl.name.split("-")[0]), []).append(whl)
    return out


def make_handler(repo: Path = REPO, dist: Path | None = None, wheels: Path | None = None):
    repo = Path(repo)
    dist = Path(dist) if dist else repo / "dist"
    wheels = Path(wheels) if wheels else repo / ".cache" / "wheels"
    mounts = {
        "pyodide": repo / "node_modules" / "pyodide",
        "wheels": wheels,
        "web": repo / "web",
        "tests": repo / "tests",
        "bench": repo / "bench",  # bench/bench.html and the peers' npm packages (bench/run.py)
        "lite": repo / ".cache" / "jupyterlite" / "site",  # scripts/build_jupyterlite.py
        "text": repo / ".cache" / "text",  # the play web/gpt.html learns (scripts/setup.sh)
        "minilm": repo / ".cache" / "minilm",  # web/examples/minilm.py's weights (scripts/setup.sh)
        "docs": repo / "build" / "docs" / "html",  # the documentation site (scripts/build_docs.py)
        "models": repo / ".cache" / "models",  # HF-layout folders: web/chat.html's (scripts/build_chat_model.py)
    }

    class Handler(SimpleHTTPRequestHandler):
        extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **MIME}
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # quiet unless asked
            if os.environ.get("WEBTORCH_SERVE_LOG"):
                super().log_message(fmt, *args)

        def end_headers(self):
            # Never let the browser cache: wheels and test files change between runs.
            self.send_header("Cache-Control", "no-store")
            # Harmless, and lets a page opt into SharedArrayBuffer later.
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
            super().end_headers()

        def guess_type(self, path):
            ext = posixpath.splitext(str(path))[1].lower()
            return MIME.get(ext) or super().guess_type(path)

        # ---- routing -------------------------------------------------------
        def _parts(self) -> list[str]:
            path = urllib.parse.urlsplit(self.path).path
            path = urllib.parse.unquote(path)
            # micropip builds f"{index_url}/{name}/", so '//' happens: collapse.
            return [p for p in path.split("/") if p not in ("", ".")]

        def translate_path(self, path):  # used by SimpleHTTPRequestHandler
            parts = self._parts()
            if not parts or parts[0] not in mounts or ".." in parts:
                return str(repo / "__nonexistent__")
            return str(mounts[parts[0]].joinpath(*parts[1:]))

        def do_GET(self):
            self._dispatch(head=False)

        def do_HEAD(self):
            self._dispatch(head=True)

        def _dispatch(self, head: bool):
            parts = self._parts()
            if not parts:  # the demo page
                self.send_response(302)
                self.send_header("Location", "/web/index.html")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if parts == ["dev"]:
                return self._send(200, "text/html; charset=utf-8", _root_page().encode(), head)
            if parts[0] == "simple":
                return self._simple(parts[1:], head)
            if parts == ["wheels", "index.json"]:
                names = sorted(p.name for p in wheels.glob("*.whl")) if wheels.is_dir() else []
                return self._send(200, "application/json", json.dumps(names).encode(), head)
            if parts[0] not in mounts or ".." in parts:
                return self.send_error(HTTPStatus.NOT_FOUND, "unknown route")
            if parts[0] == "docs" and not mounts["docs"].is_dir():
                return self.send_error(HTTPStatus.NOT_FOUND, "the docs are not built: python scripts/build_docs.py")
            return super().do_HEAD() if head else super().do_GET()

        def _send(self, code: int, ctype: str, body: bytes, head: bool):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _simple(self, rest: list[str], head: bool):
            projects = _projects(dist)
            want_json = "application/vnd.pypi.simple.v1+json" in self.headers.get("Accept", "")
            if not rest:
                if want_json:
                    body = json.dumps({"meta": {"api-version": "1.0"},
                                       "projects": [{"name": n} for n in projects]})
                    return self._send(200, "application/vnd.pypi.simple.v1+json", body.encode(), head)
                links = "\n".join(f'<a href="{n}/">{n}</a><br/>' for n in projects)
                body = f"<!DOCTYPE html>\n<html><body>\n{links}\n</body></html>\n"
                return self._send(200, "text/html; charset=utf-8", body.encode(), head)
            name = normalize(rest[0])
            if name != rest[0] and len(rest) == 1:
                # PEP 503: redirect to the normalized name.
                self.send_response(301)
                self.send_header("Location", f"/simple/{name}/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            files = projects.get(name)
            if not files:
                return self.send_error(HTTPStatus.NOT_FOUND, f"no project {name!r} in {dist}")
            if len(rest) == 1:
                # Absolute file URLs: micropip 0.11.1 resolves relative URLs from the
                # HTML API but NOT from the PEP 691 JSON API (it passes base "").
                base = f"http://{self.headers.get('Host') or '%s:%d' % self.server.server_address[:2]}/simple/{name}/"
                if want_json:
                    body = json.dumps({
                        "meta": {"api-version": "1.0"},
                        "name": name,
                        "files": [{"filename": f.name, "url": base + f.name,
                                   "hashes": {"sha256": _sha256(f)}} for f in files],
                    })
                    return self._send(200, "application/vnd.pypi.simple.v1+json", body.encode(), head)
                links = "\n".join(
                    f'<a href="{html.escape(base + f.name)}#sha256={_sha256(f)}">{html.escape(f.name)}</a><br/>'
                    for f in files)
                body = (f"<!DOCTYPE html>\n<html><head><title>Links for {name}</title></head>"
                        f"<body>\n<h1>Links for {name}</h1>\n{links}\n</body></html>\n")
                return self._send(200, "text/html; charset=utf-8", body.encode(), head)
            if len(rest) == 2:
                for f in files:
                    if f.name == rest[1]:
                        return self._send(200, "application/octet-stream", f.read_bytes(), head)
            return self.send_error(HTTPStatus.NOT_FOUND)

    return Handler


def _root_page() -> str:
    return ("<!DOCTYPE html><html><body><h1>webtorch dev server</h1><ul>"
            '<li><a href="/web/index.html">demo</a></li>'
            '<li><a href="/docs/">documentation</a> (after python scripts/build_docs.py)</li>'
            '<li><a href="/lite/lab/index.html?path=webtorch.ipynb">JupyterLite</a> '
            "(after python scripts/build_jupyterlite.py)</li>"
            '<li><a href="/tests/browser/harness.html">browser test harness</a></li>'
            '<li><a href="/simple/">/simple/ (local package index)</a></li>'
            '<li><a href="/wheels/index.json">/wheels/ (pure wheels for Pyodide)</a></li>'
            "</ul></body></html>")


def start_server(port: int = 0, repo: Path = REPO, dist: Path | None = None,
                 wheels: Path | None = None, host: str = "127.0.0.1"):
    """Start the server in a daemon thread. Returns (server, base_url) where
    base_url has no trailing slash, e.g. 'http://127.0.0.1:41234'.
    Stop it with server.shutdown(); server.server_close()."""
    server = ThreadingHTTPServer((host, port), make_handler(repo, dist, wheels))
    server.daemon_threads = True
    t = threading.Thread(target=server.serve_forever, name="webtorch-serve", daemon=True)
    t.start()
    return server, f"http://{host}:{server.server_address[1]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=8000, help="0 picks a free port (default 8000)")
    ap.add_argument("--dist", type=Path, default=None, help="wheel directory (default dist/)")
    args = ap.parse_args(argv)
    server, url = start_server(args.port, dist=args.dist)
    print(f"webtorch demo: {url}/  (open it in Chrome; package index: {url}/simple/, "
          f"other pages: {url}/dev)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Build a JupyterLite site, offline, where `%pip install webtorch` works (piplite) and the
Pyodide kernel runs webtorch on WebGPU. The example notebook notebooks/webtorch.ipynb is in it.

    python scripts/build_jupyterlite.py            # -> .cache/jupyterlite/site
    python scripts/serve.py                        # then open http://127.0.0.1:8000/lite/

Recipe (jupyterlite-core 0.8.6 + jupyterlite-pyodide-kernel 0.8.6, Pyodide 314.0.7 from npm):
- Pyodide goes under <lite_dir>/static/pyodide/ and the kernel is pointed at it (pyodideUrl).
- The kernel's start-up packages (micropip, ipython and its dependencies, jedi, parso) come from
  Pyodide's lock, whose files npm's pyodide does not ship: they are pure wheels on PyPI at the
  lock's versions. `--fetch` (scripts/setup.sh runs it) downloads them into
  .cache/jupyterlite/wheels; the build copies them next to pyodide-lock.json and rewrites their
  file_name/sha256 there.
- `comm` (a dependency of the kernel not in the lock) and the webtorch wheel go to
  <lite_dir>/pypi/, which piplite serves as an index; disablePyPIFallback keeps piplite offline.
Nothing here touches the network unless --fetch is given.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache" / "jupyterlite"
WHEELS = CACHE / "wheels"
PYODIDE = REPO / "node_modules" / "pyodide"
# The kernel's start-up closure in Pyodide 314.0.7's lock (micropip, ipython + deps, jedi, parso).
LOCK_PACKAGES = ["micropip", "ipython", "jedi", "parso"]
COMM = "comm==0.2.3"


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def lock_closure(lock: dict) -> list[dict]:
    pk = lock["packages"]
    idx = {_norm(k): k for k in pk}
    seen: list[str] = []
    todo = list(LOCK_PACKAGES)
    while todo:
        key = idx[_norm(todo.pop())]
        if key not in seen:
            seen.append(key)
            todo += pk[key].get("depends", [])
    return [pk[k] | {"_key": k} for k in seen]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(lock: dict) -> None:
    """Download the pure wheels (lock versions) and comm into .cache/jupyterlite/wheels."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    want = [f"{p['name']}=={p['version']}" for p in lock_closure(lock)
            if not (WHEELS / p["file_name"]).exists()]
    if not list(WHEELS.glob("comm-*.whl")):
        want.append(COMM)
    if want:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--python-version", "3.14",
                        "--only-binary=:all:", "-d", str(WHEELS), *want], check=True)
    print(f"jupyterlite wheels in {WHEELS}: {len(list(WHEELS.glob('*.whl')))}")


def build(out: Path, wheel: Path, notebooks: Path) -> Path:
    lock = json.loads((PYODIDE / "pyodide-lock.json").read_text())
    src = CACHE / "src"
    shutil.rmtree(src, ignore_errors=True)
    static = src / "static" / "pyodide"
    static.mkdir(parents=True)
    for f in PYODIDE.iterdir():
        if f.is_file() and f.suffix not in (".map", ".ts", ".md") and f.name != "package.json":
            shutil.copy2(f, static / f.name)
    missing = []
    for p in lock_closure(lock):
        whl = WHEELS / p["file_name"]
        if not whl.exists():
            missing.append(p["file_name"])
            continue
        shutil.copy2(whl, static / whl.name)
        entry = lock["packages"][p["_key"]]
        entry["file_name"] = whl.name
        entry["sha256"] = sha256(whl)
    comm = sorted(WHEELS.glob("comm-*.whl"))
    if missing or not comm:
        sys.exit(f"build_jupyterlite: missing wheels {missing + ([] if comm else ['comm'])} in {WHEELS}: "
                 "run scripts/setup.sh (or this script with --fetch)")
    (static / "pyodide-lock.json").write_text(json.dumps(lock))

    pypi = src / "pypi"
    pypi.mkdir()
    shutil.copy2(comm[-1], pypi / comm[-1].name)
    shutil.copy2(wheel, pypi / wheel.name)

    (src / "jupyter-lite.json").write_text(json.dumps({
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "webtorch JupyterLite",
            "litePluginSettings": {
                "@jupyterlite/pyodide-kernel-extension:kernel": {
                    "pyodideUrl": "./static/pyodide/pyodide.mjs",
                    "disablePyPIFallback": True,
                },
            },
        },
    }, indent=2))

    shutil.rmtree(out, ignore_errors=True)
    jupyter = shutil.which("jupyter") or str(Path(sys.executable).with_name("jupyter"))
    cmd = [jupyter, "lite", "build", "--lite-dir", str(src), "--output-dir", str(out),
           "--contents", str(notebooks), "--no-libarchive"]
    r = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"build_jupyterlite: {' '.join(cmd)} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    for need in ("static/pyodide/pyodide.mjs", "pypi/all.json", "files/webtorch.ipynb"):
        if not (out / need).exists():
            sys.exit(f"build_jupyterlite: {out / need} missing after the build")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=CACHE / "site", help="output directory (default %(default)s)")
    ap.add_argument("--wheel", type=Path, default=None, help="webtorch wheel (default: newest dist/webtorch-*.whl)")
    ap.add_argument("--notebooks", type=Path, default=REPO / "notebooks")
    ap.add_argument("--fetch", action="store_true", help="download the wheels the site needs (network), then build")
    ap.add_argument("--fetch-only", action="store_true", help="only download the wheels (scripts/setup.sh)")
    args = ap.parse_args(argv)
    lock = json.loads((PYODIDE / "pyodide-lock.json").read_text())
    if args.fetch or args.fetch_only:
        fetch(lock)
        if args.fetch_only:
            return 0
    wheel = args.wheel or max((REPO / "dist").glob("webtorch-*.whl"), key=lambda p: p.stat().st_mtime, default=None)
    if wheel is None:
        sys.exit("build_jupyterlite: no dist/webtorch-*.whl: run scripts/build_wheel.sh")
    out = build(args.out.resolve(), wheel.resolve(), args.notebooks.resolve())
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

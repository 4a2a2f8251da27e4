#!/usr/bin/env python3
"""Build webtorch's documentation site (docs/, Sphinx + MyST) into build/docs/html, offline.

  python scripts/build_docs.py [--out DIR] [-j N]

Warnings are errors (-W --keep-going: every warning is printed, then the build fails), references are
nitpicky, and a broken relative link in the built pages fails it (docs/_ext/webtorch_docs.py). Nothing is
fetched: no intersphinx, no CDN, no web fonts. scripts/serve.py serves the result at /docs/.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "build" / "docs"


def build(out: Path = OUT, jobs: str = "1", quiet: bool = True) -> int:
    """Run Sphinx (html builder) from docs/ into out/html (doctrees in out/doctrees); its exit status."""
    from sphinx.cmd.build import build_main
    args = ["-b", "html", "-E", "-W", "--keep-going", "-n", "-j", jobs, "-d", str(out / "doctrees"),
            str(REPO / "docs"), str(out / "html")]
    return build_main(args + (["-q"] if quiet else []))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT, help=f"output folder (default {OUT.relative_to(REPO)})")
    ap.add_argument("-j", default="1", help="Sphinx's parallel jobs (default 1)")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    status = build(args.out, args.j, quiet=False)
    print(f"build_docs: {'ok' if status == 0 else 'FAILED'} in {time.perf_counter() - start:.1f} s: "
          f"{args.out / 'html' / 'index.html'}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())

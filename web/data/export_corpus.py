"""Writes web/data/corpus.txt, the sentences the semantic search page (web/search.html) embeds: the
first line of the docstring of public functions of some standard-library modules, as
"module.function: line" (run with any CPython 3.11+; the committed file came from 3.11)."""
import importlib
import inspect
from pathlib import Path

MODULES = ["math", "statistics", "random", "string", "os.path", "json", "re", "datetime", "itertools", "functools",
           "shutil", "zipfile", "base64", "hashlib", "heapq", "bisect", "textwrap", "fractions", "time", "calendar",
           "urllib.parse", "html", "gzip", "glob", "fnmatch", "tempfile", "uuid", "operator", "copy", "difflib"]


def sentences(limit=300):
    seen, out = set(), []
    for name in MODULES:
        module = importlib.import_module(name)
        for attr in sorted(dir(module)):
            fn = getattr(module, attr)
            if attr.startswith("_") or not callable(fn) or inspect.isclass(fn):
                continue
            doc = (inspect.getdoc(fn) or "").strip().split("\n")[0].strip()
            if len(doc) < 20 or "(" in doc[:len(attr) + 1] or doc in seen:  # skip signatures and repeats
                continue
            seen.add(doc)
            out.append(f"{name}.{attr}: {doc}")
    return out[:limit]


if __name__ == "__main__":
    lines = sentences()
    Path(__file__).with_name("corpus.txt").write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} sentences")

"""The Python code blocks of the docs pages (docs/*.md), for tests/test_docs.py (host) and
tests/browser/test_docs_browser.py (a sample in Pyodide).

Every ```python block of a page runs, in page order and in one namespace per page (as a reader runs them
one after another), except a block right after a line `<!-- no-run: why -->` (top-level await,
a browser-only API, a file the reader has). A page whose blocks call `webtorch.install_as_torch()`
(or set WEBTORCH_AS_TORCH) runs in a fresh interpreter of its own. A block right after `<!-- browser -->` also runs in the
browser test. The README's blocks are the docs' quick starts and are checked where they are.
"""
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
_BLOCK = re.compile(r"(?:^<!-- (?P<mark>[^\n]*?) -->\n)?^```python\n(?P<code>.*?)^```", re.S | re.M)


def page_blocks(path):
    """[(mark, code)] of one page's ```python blocks; mark is the comment right above ('' if none)."""
    text = Path(path).read_text(encoding="utf-8")
    return [((m.group("mark") or "").strip(), m.group("code")) for m in _BLOCK.finditer(text)]


def runnable_pages():
    """{page name: [code, ...]}: the blocks that run on the host, per page."""
    out = {}
    for path in sorted(DOCS.glob("*.md")):
        codes = [code for mark, code in page_blocks(path) if not mark.startswith("no-run")]
        if codes:
            out[path.name] = codes
    return out


def browser_blocks():
    """[(page name, code)] of the blocks marked to run in the browser too."""
    return [(path.name, code) for path in sorted(DOCS.glob("*.md"))
            for mark, code in page_blocks(path) if mark == "browser"]

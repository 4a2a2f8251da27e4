"""A sample of the docs pages' Python code blocks (those marked `<!-- browser -->`, tests/doc_blocks.py) run
inside Pyodide on WebGPU (SwiftShader), on the page's main thread; tests/test_docs.py runs all of them on the
host."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from doc_blocks import browser_blocks  # noqa: E402


def test_some_blocks_are_marked():
    assert len(browser_blocks()) >= 2


@pytest.mark.parametrize("page,code", browser_blocks(), ids=[f"{p}-{i}" for i, (p, _) in enumerate(browser_blocks())])
def test_doc_block_runs_in_pyodide(py_page, page, code):
    # each block in a namespace of its own, as on the host; the block's asserts are the check
    assert py_page.run(f"exec(compile({code!r}, {f'docs/{page}'!r}, 'exec'), {{'__name__': '__docs__'}})\n'ok'") == "ok"

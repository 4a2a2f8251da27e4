"""JupyterLite, built offline by scripts/build_jupyterlite.py: the example notebook
(notebooks/webtorch.ipynb) runs in the Pyodide kernel (a web worker): `%pip install webtorch`
through piplite from the site's own pypi/, then webtorch cells on WebGPU."""
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / ".cache" / "jupyterlite" / "site"  # what scripts/serve.py serves under /lite/
ARTIFACTS = Path(os.environ.get("WEBTORCH_ARTIFACTS", "/tmp/webtorch-artifacts"))

pytestmark = pytest.mark.webgpu


@pytest.fixture(scope="module")
def lite_site(webtorch_wheel):
    pytest.importorskip("jupyterlite_core", reason="pip install jupyterlite-core (scripts/setup.sh)")
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "build_jupyterlite.py"), "--wheel", str(webtorch_wheel)],
                       cwd=REPO, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"build_jupyterlite.py failed:\n{r.stdout}\n{r.stderr}", pytrace=False)
    assert Path(r.stdout.strip().splitlines()[-1]).resolve() == SITE.resolve()  # (.cache may be a link)
    return SITE


def test_site_layout(lite_site):
    import json
    cfg = json.loads((lite_site / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = cfg["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["disablePyPIFallback"] is True and kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    assert set(json.loads((lite_site / "pypi" / "all.json").read_text())) == {"comm", "webtorch"}
    lock = json.loads((lite_site / "static" / "pyodide" / "pyodide-lock.json").read_text())
    for name in ("micropip", "ipython", "jedi", "parso"):
        assert (lite_site / "static" / "pyodide" / lock["packages"][name]["file_name"]).exists(), name


def test_notebook_runs_webtorch_on_webgpu(lite_site, browser, server_url):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    foreign = []  # no network beyond the page's origin
    page.on("request", lambda r: foreign.append(r.url) if urlsplit(r.url).netloc not in (urlsplit(server_url).netloc, "")
            and not r.url.startswith(("data:", "blob:")) else None)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{server_url}/lite/notebooks/index.html?path=webtorch.ipynb")
        page.wait_for_selector(".jp-Notebook .jp-Cell.jp-CodeCell")
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator, .jp-KernelStatus, .jp-Toolbar", state="attached")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        deadline = time.monotonic() + 150
        outs = []
        while time.monotonic() < deadline:
            outs = page.locator(".jp-OutputArea-output").all_inner_texts()
            if any("weight" in o for o in outs) or any("Error" in o for o in outs):
                break
            page.wait_for_timeout(1000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "jupyterlite.png"))
        text = "\n".join(outs)
        assert "Error" not in text and "Traceback" not in text, text
        assert "WebGPU device: google" in text, text  # SwiftShader's vendor
        assert "tensor([-2.5000,  3.6000,  2.1000, -0.1000], device='webgpu:0')" in text, text
        assert "[[15.0, 18.0, 21.0], [42.0, 54.0, 66.0], [69.0, 90.0, 111.0]]" in text, text
        assert "weight 3.000  bias -0.500" in text, text
        assert not foreign, foreign
    finally:
        context.close()


def test_gpt_notebook_code(py_worker):
    """notebooks/gpt.ipynb's code cells, in order, in webtorch's worker (its %pip cell aside: the
    notebook above covers JupyterLite's install): the text and the model code come from the site, 30
    AdamW steps keep the loss below the uniform guess, sampling writes the play's characters, and
    torch.save writes the checkpoint."""
    import json
    cells = ["".join(c["source"]) for c in json.loads((REPO / "notebooks" / "gpt.ipynb").read_text())["cells"]
             if c["cell_type"] == "code" and not "".join(c["source"]).startswith("%pip")]
    outputs = []
    for code in cells:
        result = py_worker.run(code, timeout=600)
        outputs.append((py_worker.stdout(), result))
    assert "103427 characters, 67 distinct, on google" in outputs[0][0], outputs[0]  # SwiftShader's vendor
    losses = [float(line.split("loss ")[1].split()[0]) for line in outputs[1][0].splitlines()]
    assert len(losses) == 3 and all(loss < 3.9 for loss in losses), outputs[1]  # uniform: ln 67 = 4.2
    sample = outputs[2][0]
    assert len(sample) > 150 and set(sample) <= set(py_worker.run("''.join(tokenizer.chars)")), sample
    assert outputs[3][1] > 100_000, outputs[3]  # the state_dict of a 29k-parameter model, float32

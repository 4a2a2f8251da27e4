"""The demo page (web/index.html) end to end in headless Chromium: start-up with progress,
the seed example and a short training run through the UI, the live plot, the prediction
view, Stop, and the no-WebGPU page in a browser launched without WebGPU."""
import base64
import os
from pathlib import Path

import pytest

from conftest import _chromium, open_app_page, page_adapter

ARTIFACTS = Path(os.environ.get("WEBTORCH_ARTIFACTS", "/tmp/webtorch-artifacts"))

# Counts the pixels of a PNG (a Playwright screenshot) that are not background, and the
# distinct colours, by drawing it into a canvas.
PNG_STATS = """async (b64) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + b64;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let ink = 0, red = 0, blue = 0;
  const colours = new Set();
  for (let i = 0; i < d.length; i += 4) {
    const [r, gg, b] = [d[i], d[i + 1], d[i + 2]];
    if (r < 240 || gg < 240 || b < 240) ink++;
    if (r > 200 && gg < 120 && b < 90) red++;     // the loss line (#ee4c2c)
    if (b > 180 && r < 90 && gg < 140) blue++;    // the accuracy line (#2f6fde)
    colours.add((r << 16) | (gg << 8) | b);
  }
  return {w: c.width, h: c.height, ink, red, blue, colours: colours.size};
}"""


@pytest.fixture(scope="module")
def demo(browser, server_url):
    page = open_app_page(browser, server_url, "/", 120_000, {"width": 1280, "height": 1100})  # / redirects to the demo
    yield page
    page.context.close()


def test_demo_starts_with_adapter_and_progress(demo):
    assert demo.url.endswith("/web/index.html")
    adapter, shown = page_adapter(demo), demo.inner_text("#adapter")  # SwiftShader here, the GPU in the GPU rig
    assert f"vendor\n{adapter['vendor']}\n" in shown and f"shader-f16\n{str(adapter['f16']).lower()}\n" in shown, shown
    assert demo.inner_text("#status-text") == "Ready"
    names = demo.evaluate("webtorchDemo.progress.filter(p => p.status === 'initiate').map(p => p.name)")
    assert names == ["pyodide", "packages", "gpu", "kernels"]
    # three examples are loaded into the editor's menu; the seed example is shown first
    assert "torch.tensor([-1.5, 2.7, 1.0, 2.0]" in demo.input_value("#code")
    assert demo.locator("#predictions canvas").count() == 40
    assert not demo.errors


def _seed_example(demo, button):
    """Console text after the seed example ran through `button` (#run or #profile)."""
    demo.click("#clear")
    demo.select_option("#examples", "seed.py")
    runs = demo.evaluate("webtorchDemo.runs")
    demo.click(button)
    demo.wait_for_function(f"webtorchDemo.runs > {runs}")
    out = demo.inner_text("#console")
    assert "tensor([-2.5000,  3.6000,  2.1000, -0.1000], device='webgpu:0')" in out, out
    assert "Traceback" not in out, out
    return out


def test_seed_example_through_the_ui(demo):
    out = _seed_example(demo, "#run")
    assert "[[15.0, 18.0, 21.0], [42.0, 54.0, 66.0], [69.0, 90.0, 111.0]]" in out, out


def test_profile_button(demo):
    # the example runs under webtorch.profiler, then its table: the example's a + b by name
    out = _seed_example(demo, "#profile")
    assert "Self GPU time total" in out and "# of Calls" in out and "GPU Mem" in out and "\nadd " in out, out
    assert out.rstrip().splitlines()[-1].startswith("(profile Seed example:")


def test_matmul_benchmark_example(demo):
    demo.click("#clear")
    demo.select_option("#examples", "matmul_bench.py")
    assert "GFLOP/s" in demo.input_value("#code")
    runs = demo.evaluate("webtorchDemo.runs")
    demo.click("#run")
    demo.wait_for_function(f"webtorchDemo.runs > {runs}", timeout=120_000)
    out = demo.inner_text("#console")
    assert "Traceback" not in out, out
    rows = [line for line in out.splitlines() if "GFLOP/s" in line]
    sizes = [r.split()[0] for r in rows]  # stops early on a slow adapter (SwiftShader: at 256 or 512)
    assert len(sizes) >= 3 and sizes == ["64", "128", "256", "512", "1024", "2048"][:len(sizes)], out
    assert all(float(r.split()[-2]) > 0 for r in rows), rows
    err = float(out.split("max |gpu - cpu| for 64x64:")[1].split()[0])
    assert err < 1e-4, out


def test_python_error_is_shown(demo):
    demo.fill("#code", "import webtorch as torch\ntorch.ones(2, device='webgpu') @ torch.ones(3, device='webgpu')")
    runs = demo.evaluate("webtorchDemo.runs")
    demo.press("#code", "Control+Enter")
    demo.wait_for_function(f"webtorchDemo.runs > {runs}")
    err = demo.locator("#console .err").last.inner_text().rstrip()
    assert err.startswith("Traceback (most recent call last)"), err
    assert err.splitlines()[-1].startswith("RuntimeError: inconsistent tensor size"), err
    assert 'File "<exec>", line 2, in <module>' in err, err
    assert "_pyodide/_base.py" not in err, err  # Pyodide's own frames are trimmed for display


def test_training_through_the_ui_draws_the_plot(demo):
    demo.click("#clear")
    demo.fill("#epochs", "2")
    runs = demo.evaluate("webtorchDemo.runs")
    demo.click("#train")
    demo.wait_for_function(f"webtorchDemo.runs > {runs}", timeout=180_000)
    out = demo.inner_text("#console")
    assert "Traceback" not in out, out
    metrics = demo.evaluate("webtorchDemo.metrics")
    assert [m["epoch"] for m in metrics] == [1, 2], metrics
    assert metrics[1]["loss"] < metrics[0]["loss"], metrics
    assert metrics[1]["test_acc"] > 0.75, metrics  # 2 epochs of Adam on digits: ~0.85
    assert "epoch 2/2" in demo.inner_text("#train-status")
    pred = demo.evaluate("webtorchDemo.predictions")
    assert len(pred["pred"]) == 40 and all(0 <= p <= 9 for p in pred["pred"])
    right = sum(p == y for p, y in zip(pred["pred"], pred["label"]))
    assert right >= 28, pred
    assert demo.locator("#predictions .digit.right").count() == right
    assert f"({right}/40 predicted right" in demo.inner_text("#pred-summary")

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    png = demo.locator("#plot").screenshot(path=str(ARTIFACTS / "demo-plot.png"))
    demo.screenshot(path=str(ARTIFACTS / "demo-page.png"), full_page=True)
    stats = demo.evaluate(PNG_STATS, base64.b64encode(png).decode())
    assert stats["w"] >= 300 and stats["h"] >= 100, stats
    assert stats["ink"] > 0.02 * stats["w"] * stats["h"], stats  # axes, labels, lines: not blank
    assert stats["red"] > 100 and stats["blue"] > 100, stats      # both series are drawn
    assert stats["colours"] > 20, stats


def test_stop_interrupts_training(demo):
    demo.fill("#epochs", "100")
    runs = demo.evaluate("webtorchDemo.runs")
    demo.click("#train")
    demo.wait_for_function("webtorchDemo.metrics.length >= 1", timeout=60_000)
    assert demo.is_enabled("#stop")
    demo.click("#stop")
    demo.wait_for_function(f"webtorchDemo.runs > {runs}", timeout=30_000)
    err = demo.locator("#console .err").last.inner_text()
    assert "KeyboardInterrupt" in err, err
    assert demo.evaluate("webtorchDemo.metrics.length") < 100
    # the worker survives: the next run works
    demo.select_option("#examples", "seed.py")
    demo.click("#run")
    demo.wait_for_function(f"webtorchDemo.runs > {runs + 1}")
    assert demo.inner_text("#console").rstrip().splitlines()[-1].startswith("(run Seed example:")


def test_only_the_pages_origin_was_contacted(demo):
    assert not demo.foreign, demo.foreign
    assert not demo.errors, demo.errors


@pytest.mark.parametrize("page_name", ["index", "gpt", "search"])
def test_no_webgpu_page(playwright, server_url, page_name):
    # A separate Chromium without --enable-unsafe-webgpu: on Linux navigator.gpu exists but
    # requestAdapter() resolves to null. Each page must say so (web/common.js writes the box for all)
    # and load nothing heavy.
    browser = playwright.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
    try:
        page = browser.new_page()
        requested = []
        page.on("request", lambda r: requested.append(r.url))
        page.goto(f"{server_url}/web/{page_name}.html")
        page.wait_for_selector("body[data-state=nogpu]", timeout=30_000)
        probe = page.evaluate("async () => ({gpu: !!navigator.gpu, adapter: await navigator.gpu?.requestAdapter() ?? null})")
        assert probe == {"gpu": True, "adapter": None}, probe
        assert page.is_visible("#nogpu") and not page.is_visible("#app")
        reason = page.inner_text("#nogpu-reason")
        assert "requestAdapter() found no GPU adapter" in reason, reason
        text = page.inner_text("#nogpu")
        assert "chrome://flags/#enable-unsafe-webgpu" in text and "chrome://gpu" in text, text
        assert page.inner_text("#status-text") == "WebGPU unavailable"
        assert not [u for u in requested if "/pyodide/" in u or "/simple/" in u or "worker.js" in u], requested
    finally:
        browser.close()

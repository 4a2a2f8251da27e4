"""The "Train a GPT in your tab" page (web/gpt.html) end to end in headless Chromium: start-up at the
adapter's size (on a software adapter a small model and a note saying why), a short training run lowers the loss, sampling
writes text of the play's characters, Save checkpoint gives bytes that real PyTorch loads into the
same model (web/examples/gpt.py under torch), Load checkpoint restores them, the plot is drawn, and
nothing is requested beyond the page's origin."""
import base64
import io
import types
from pathlib import Path

import pytest

from conftest import open_app_page, page_adapter
from test_web_demo import PNG_STATS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gpt_page(browser, server_url):
    page = open_app_page(browser, server_url, "/web/gpt.html", 300_000, {"width": 1280, "height": 1100})
    yield page
    page.context.close()


def test_model_size_follows_the_adapter(gpt_page):
    # a small model and a note saying why on a software adapter (SwiftShader here), the large one on a GPU
    software = page_adapter(gpt_page)["software"]
    assert f"software adapter\n{str(software).lower()}" in gpt_page.inner_text("#adapter")
    assert gpt_page.is_visible("#software-note") == software
    assert gpt_page.evaluate("gptDemo.size") == ("small" if software else "large")
    assert "characters of Macbeth" in gpt_page.inner_text("#console")
    assert not gpt_page.errors


def test_training_lowers_the_loss_and_sampling_writes_text(gpt_page):
    gpt_page.fill("#steps", "30")
    gpt_page.click("#train")
    gpt_page.wait_for_function("!gptDemo.running && gptDemo.losses.filter(p => p.val_loss != null).length >= 2")
    losses = gpt_page.evaluate("gptDemo.losses")
    assert [p["step"] for p in losses[:4]] == [0, 10, 20, 30]  # step 0: the untrained model's validation loss
    assert losses[0]["val_loss"] > 4.0 and losses[-1]["val_loss"] < losses[0]["val_loss"] - 0.5, losses
    assert losses[-1]["tokens_per_s"] > 0 and "tokens/s" in gpt_page.inner_text("#train-status")
    gpt_page.click("#sample")
    gpt_page.wait_for_function("!gptDemo.running && gptDemo.samples.length > 0")
    text = gpt_page.evaluate("gptDemo.samples[gptDemo.samples.length - 1].text")
    play = (REPO / ".cache" / "text" / "macbeth.txt").read_text()
    assert len(text) == 301 and set(text) <= set(play), text  # the "\n" prompt + 300 characters
    assert "Traceback" not in gpt_page.inner_text("#console")


def test_checkpoint_loads_in_pytorch_and_back(gpt_page):
    import torch  # here, not at the top: the page's other tests run where torch is absent (scripts/gpu_chrome_run.sh)
    gpt_page.wait_for_function("!gptDemo.running")
    gpt_page.click("#save")
    gpt_page.wait_for_function("!gptDemo.running && gptDemo.lastCheckpoint !== null")
    data = base64.b64decode(gpt_page.evaluate(
        "btoa(Array.from(gptDemo.lastCheckpoint, (b) => String.fromCharCode(b)).join(''))"))
    checkpoint = torch.load(io.BytesIO(data), weights_only=True)
    assert checkpoint["step"] == 30 and checkpoint["config"]["n_layer"] == 2
    gpt = types.ModuleType("gpt_torch")
    source = (REPO / "web" / "examples" / "gpt.py").read_text().replace("import webtorch as torch", "import torch")
    exec(compile(source, "gpt.py", "exec"), gpt.__dict__)
    model = gpt.GPT(gpt.GPTConfig(**checkpoint["config"]))
    model.load_state_dict(checkpoint["model"])  # strict: every name and shape as torch's module has them
    sd = checkpoint["model"]
    assert sd["lm_head.weight"].data_ptr() == sd["wte.weight"].data_ptr()  # tied weights saved as one storage
    assert len(checkpoint["optimizer"]["state"]) == len(list(model.parameters()))
    # and the page loads it back
    gpt_page.set_input_files("#load", files=[{"name": "gpt-macbeth.pt", "mimeType": "application/octet-stream",
                                               "buffer": data}])
    gpt_page.wait_for_function("document.getElementById('console').innerText.includes('loaded gpt-macbeth.pt')")
    assert "loaded gpt-macbeth.pt: step 30" in gpt_page.inner_text("#console")


def test_plot_screenshot_and_origin(gpt_page):
    shot = base64.b64encode(gpt_page.locator("#plot").screenshot()).decode()
    stats = gpt_page.evaluate(PNG_STATS, shot)
    assert stats["red"] > 200 and stats["colours"] > 20, stats  # the loss line
    gpt_page.screenshot(path="/tmp/webtorch-artifacts/gpt-page.png", full_page=True)
    assert not gpt_page.foreign, gpt_page.foreign
    assert not gpt_page.errors, gpt_page.errors

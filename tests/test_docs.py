"""The documentation site (docs/, scripts/build_docs.py): it builds offline with no warnings, a broken link
fails the build, every public name of webtorch's namespaces is in the API reference, and the pages' Python
code blocks run. One Sphinx build per test session (the `site` fixture)."""
import contextlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import webtorch
from doc_blocks import runnable_pages

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import webtorch_docs  # noqa: E402

pytestmark = pytest.mark.xdist_group("docs")  # one pytest-xdist worker: one Sphinx build


def _load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(exit status, html folder, warnings text) of one fresh build."""
    out = tmp_path_factory.mktemp("docs")
    log = io.StringIO()
    with contextlib.redirect_stderr(log):
        status = _load_script("build_docs").build(out, jobs="1", quiet=True)
    return status, out / "html", log.getvalue()


def test_builds_without_warnings(site):
    status, html, warnings = site
    assert status == 0 and (html / "index.html").exists(), warnings[-5000:]
    assert "WARNING" not in warnings and "ERROR" not in warnings, warnings[-5000:]


def test_pages_need_nothing_from_the_network(site):
    _, html, _ = site
    for path in html.rglob("*"):
        if path.suffix in (".html", ".css", ".js"):
            text = path.read_text(encoding="utf-8", errors="replace")
            # links out are fine; nothing the page loads may come from elsewhere
            for attr in ('src="http', "src='http", '@import url(http', 'rel="stylesheet" href="http'):
                assert attr not in text, f"{path.relative_to(html)} loads {attr}..."


def test_broken_links_are_found(site, tmp_path):
    _, html, _ = site
    assert webtorch_docs.check_links(html) == []
    shutil.copy(html / "index.html", tmp_path / "index.html")
    page = tmp_path / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "</body>", '<a href="no-such-page.html">x</a><a href="index.html#no-such-id">y</a>'
                   '<img src="_static/none.png"><a href="https://example.org/elsewhere.html">z</a></body>'),
        encoding="utf-8")
    problems = webtorch_docs.check_links(tmp_path)
    assert any("no-such-page.html (no such file)" in p for p in problems), problems
    assert any("index.html#no-such-id (no id 'no-such-id' there)" in p for p in problems), problems
    assert any("_static/none.png" in p for p in problems), problems
    assert not any("example.org" in p for p in problems), problems


def _documented_names(html):
    from sphinx.util.inventory import InventoryFile
    with open(html / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", lambda base, uri: uri)
    return {name for objects in inventory.values() for name in objects}


def test_every_public_name_is_in_the_reference(site):
    _, html, _ = site
    documented = _documented_names(html)
    public = [n for n in dir(webtorch) if not n.startswith("_")]
    assert len(public) > 500
    missing = [n for n in public if f"webtorch.{n}" not in documented]
    assert not missing, f"public names of webtorch missing from docs/api: {missing}"
    pages = sorted(p.stem for p in (ROOT / "docs" / "api").glob("webtorch*.rst"))
    for namespace in pages:
        missing = [n for n, _, _ in webtorch_docs.public_names(namespace) if f"{namespace}.{n}" not in documented]
        assert not missing, f"{namespace}: {missing}"


def test_docstrings_render_as_prose():
    rst = webtorch_docs.docstring_rst(["Like `Tensor.addbmm_`: a_b *x* |y|.", "", "- one", "  more", "- two",
                                       "", "Example:", "    x = 1"])
    assert rst == ["Like \\ ``Tensor.addbmm_``\\ \\: a\\_b \\*x\\* \\|y\\|.", "", "- one more", "- two", "",
                   "Example\\:", "", "::", "", "       x = 1", ""]



def test_undocumented_names_point_at_torch(site):
    """A name without a docstring of its own reads as its torch twin's, only where torch has that name."""
    _, html, _ = site
    nn_page = (html / "api" / "webtorch.nn.html").read_text(encoding="utf-8")
    assert "PyTorch 2.13’s <code" in nn_page and "torch.nn.AdaptiveAvgPool2d" in nn_page
    st_page = (html / "api" / "webtorch.safetensors.html").read_text(encoding="utf-8")
    assert 'id="webtorch.safetensors.load_file"' in st_page and "PyTorch 2.13" not in st_page

# Run in a fresh interpreter: a page whose blocks make `import torch` answer webtorch, which cannot happen in a
# process that has imported real torch (and must not outlive the page).
_OWN_PROCESS = ("install_as_torch", "WEBTORCH_AS_TORCH")
_RUNNER = """
import json, sys
namespace = {"__name__": "__docs__"}
for i, code in enumerate(json.load(sys.stdin)):
    print(f"-- block {i + 1}", flush=True)
    exec(compile(code, f"block {i + 1}", "exec"), namespace)
"""


@pytest.mark.parametrize("page", sorted(runnable_pages()))
def test_code_blocks_run(page, tmp_path, monkeypatch):
    """Each page's Python blocks, in order, in one namespace, in a scratch folder."""
    codes = runnable_pages()[page]
    if any(word in code for code in codes for word in _OWN_PROCESS):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(codes), text=True, cwd=tmp_path,
                              env=env, capture_output=True, timeout=600)
        assert done.returncode == 0, f"docs/{page}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    for i, code in enumerate(codes):
        try:
            exec(compile(code, f"docs/{page} block {i + 1}", "exec"), namespace)
        except Exception as e:
            raise AssertionError(f"docs/{page}, python block {i + 1} failed:\n{code}") from e

def test_served_at_docs(site, tmp_path):
    """scripts/serve.py serves the built site at /docs/ (the demo page links there), and says how to build
    it where it is not built."""
    import urllib.error
    import urllib.request
    _, html, _ = site
    serve = _load_script("serve")
    for built in (True, False):
        repo = tmp_path / ("built" if built else "bare")
        (repo / "build" / "docs").mkdir(parents=True)
        if built:
            (repo / "build" / "docs" / "html").symlink_to(html, target_is_directory=True)
        server, url = serve.start_server(repo=repo)
        try:
            if built:
                home = urllib.request.urlopen(url + "/docs/").read().decode()
                api = urllib.request.urlopen(url + "/docs/api/webtorch.html").read().decode()
                assert "<title>webtorch" in home and 'id="webtorch.tensor"' in api
            else:
                with pytest.raises(urllib.error.HTTPError, match="404") as e:
                    urllib.request.urlopen(url + "/docs/")
                assert "build_docs.py" in e.value.read().decode()
        finally:
            server.shutdown()
            server.server_close()
    assert 'href="/docs/"' in (ROOT / "web" / "index.html").read_text(encoding="utf-8")

"""web/worker.js through web/webtorch-client.js: start-up progress, run, streamed output,
Python tracebacks, events from Python, interrupt and restart."""
import pytest

pytestmark = pytest.mark.webgpu

START = """async () => {
  const {Webtorch, PythonError, CancelledError} = await import('/web/webtorch-client.js');
  const log = {progress: [], stdout: [], events: []};
  const wt = await Webtorch.create({
    onProgress: (p) => log.progress.push({status: p.status, name: p.name, loaded: p.loaded, total: p.total}),
    onStdout: (line) => log.stdout.push(line),
  });
  Object.assign(window, {wt, log, PythonError, CancelledError});
  return {version: wt.version, adapter: wt.adapter, gpuError: wt.gpuError, canInterrupt: wt.canInterrupt};
}"""


@pytest.fixture(scope="module")
def client(browser, server_url):
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server_url}/tests/browser/harness.html")
    page.set_default_timeout(120_000)
    info = page.evaluate(START)
    page.info = info
    page.errors = errors
    yield page
    context.close()


def test_ready_with_adapter(client):
    info = client.info
    assert info["version"].startswith("314."), info
    assert info["gpuError"] is None, info
    assert info["adapter"]["vendor"], info  # SwiftShader reports "google"
    assert info["canInterrupt"] is True, info  # serve.py sends COOP/COEP


def test_progress_events_in_order(client):
    events = client.evaluate("log.progress")
    stages = []
    for e in events:
        if e["status"] == "initiate":
            stages.append(e["name"])
    assert stages == ["pyodide", "packages", "gpu", "kernels"], events
    # Each stage: initiate, progress*, done, with loaded counting up to total; then ready.
    assert events[-1]["status"] == "ready", events
    current = None
    for e in events[:-1]:
        if e["status"] == "initiate":
            assert current is None, e
            current, last = e["name"], e["loaded"]
            continue
        assert e["name"] == current, (e, events)
        assert last <= e["loaded"] <= e["total"], (e, events)
        last = e["loaded"]
        if e["status"] == "done":
            assert e["loaded"] == e["total"], e
            current = None
    assert current is None
    kernels = [e for e in events if e["name"] == "kernels" and e["status"] == "progress"]
    assert len(kernels) >= 10, kernels
    packages = [e for e in events if e["name"] == "packages" and e["status"] == "progress"]
    assert len(packages) == 3, packages  # packaging, micropip, webtorch


def test_run_result_on_webgpu(client):
    r = client.evaluate("""() => wt.run(`
import webtorch as torch
a = torch.tensor([-1.5, 2.7, 1.0, 2.0], device="webgpu")
b = torch.tensor([-1.0, 0.9, 1.1, -2.1], device="webgpu")
result = a + b
assert torch.allclose(result.to("cpu"), torch.tensor([-2.5, 3.6, 2.1, -0.1]))
{"device": result.device.type, "values": [round(v, 4) for v in result.tolist()]}`)""")
    assert r == {"device": "webgpu", "values": [-2.5, 3.6, 2.1, -0.1]}


def test_stdout_streams_before_the_run_ends(client):
    r = client.evaluate("""async () => {
  const seen = [];
  const t0 = performance.now();
  const result = await wt.run(
    "import asyncio\\nprint('first')\\nawait asyncio.sleep(0.6)\\nprint('second')\\n'end'",
    {onStdout: (line) => seen.push([line, performance.now() - t0])});
  return {result, seen, total: performance.now() - t0};
}""")
    assert r["result"] == "end"
    assert [s[0] for s in r["seen"]] == ["first", "second"], r
    assert r["seen"][0][1] < r["total"] - 400, r  # 'first' arrived while the run was still going


def test_events_from_python(client):
    r = client.evaluate("""async () => {
  const got = [];
  await wt.run("from webtorch_web import emit\\nimport json\\nfor i in range(3): emit('tick', json.dumps({'i': i}))",
               {onEvent: (kind, data) => got.push([kind, JSON.parse(data)])});
  return got;
}""")
    assert r == [["tick", {"i": 0}], ["tick", {"i": 1}], ["tick", {"i": 2}]]


def test_python_error_has_traceback(client):
    r = client.evaluate("""async () => {
  try { await wt.run("def f():\\n    raise ValueError('boom 42')\\nf()"); return null; }
  catch (e) { return {name: e.name, type: e.type, message: e.message, isPy: e instanceof PythonError}; }
}""")
    assert r["isPy"] and r["type"] == "ValueError", r
    assert "Traceback (most recent call last)" in r["message"] and "ValueError: boom 42" in r["message"], r
    assert 'line 2, in f' in r["message"], r
    assert client.evaluate("wt.run('1 + 1')") == 2  # still usable


def test_cancel_at_a_cancellation_point(client):
    # webtorch_web.emit / check_cancelled raise KeyboardInterrupt once the page cancels.
    r = client.evaluate("""async () => {
  const run = wt.run("from webtorch_web import check_cancelled\\nk = 0\\nwhile True:\\n    k += 1\\n    check_cancelled()")
      .then(() => 'finished', (e) => e.type + ': ' + e.message.trim().split('\\n').pop());
  await new Promise((r) => setTimeout(r, 300));
  const how = await wt.cancel({graceMs: 3000});
  return {how, outcome: await run, k: await wt.run('k > 0')};
}""")
    assert r == {"how": "cancelled", "outcome": "KeyboardInterrupt: KeyboardInterrupt: cancelled by the page", "k": True}


def test_interrupt_a_busy_loop(client):
    # No cancellation point: Pyodide's interrupt buffer stops it.
    r = client.evaluate("""async () => {
  const run = wt.run("n = 0\\nwhile True:\\n    n += 1").then(() => 'finished', (e) => e.type);
  await new Promise((r) => setTimeout(r, 500));
  const how = await wt.cancel({graceMs: 1500});
  return {how, outcome: await run, n: await wt.run('n > 0'), pid: await wt.run('id(n) is not None')};
}""")
    assert r == {"how": "interrupted", "outcome": "KeyboardInterrupt", "n": True, "pid": True}


def test_interrupt_a_loop_of_readbacks(client):
    # Python spends most of this loop suspended in .item() (on the readback's promise): the interrupt
    # lands between two readbacks, and the next readback works.
    r = client.evaluate("""async () => {
  const run = wt.run("import webtorch as torch\\nx = torch.ones(4, device='webgpu')\\nn = 0\\n" +
                     "while True:\\n    n += (x * n).sum().item() >= 0")
      .then(() => 'finished', (e) => e.type);
  await new Promise((r) => setTimeout(r, 1500));
  const how = await wt.cancel({graceMs: 3000});
  return {how, outcome: await run, n: await wt.run('n > 0'),
          after: await wt.run("from webtorch.backend.webgpu import runtime\\n" +
                              "[(x * 2).sum().item(), runtime().driver.wait_route]")};
}""")
    assert r == {"how": "interrupted", "outcome": "KeyboardInterrupt", "n": True, "after": [8.0, "socket"]}


def test_cancel_restarts_a_stuck_worker(client):
    # Suspended on a promise that never settles: the interrupt cannot land, so cancel()
    # terminates the worker and starts a new one (Python state is gone).
    r = client.evaluate("""async () => {
  await wt.run("marker = 1");
  const run = wt.run("import js\\nfrom pyodide.ffi import run_sync\\nrun_sync(js.eval('new Promise(() => {})'))")
      .then(() => 'finished', (e) => e.name);
  await new Promise((r) => setTimeout(r, 300));
  const how = await wt.cancel({graceMs: 1000});
  return {how, outcome: await run, marker: await wt.run("'marker' in globals()"),
          two: await wt.run("import webtorch as torch\\n(torch.ones(2, device='webgpu') * 2).tolist()")};
}""")
    assert r == {"how": "restarted", "outcome": "CancelledError", "marker": False, "two": [2.0, 2.0]}


def test_readme_quick_start_micropip_by_name(browser, server_url):
    # The README's quick start, verbatim but for the port: a bare page loads Pyodide, then
    # `await micropip.install("webtorch", index_urls=[...])` finds webtorch BY NAME in the
    # served PEP 503 index (nothing preinstalled) and runs it on WebGPU.
    import re
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    js = re.search(r"## Quick start in a Pyodide page.*?```js\n(.*?)```", readme, re.S).group(1)
    js = js.replace("http://127.0.0.1:8000", server_url)
    assert 'micropip.install("webtorch", index_urls=' in js
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{server_url}/tests/browser/harness.html")
        page.set_default_timeout(120_000)
        out = page.evaluate("""async (body) => {
  const lines = [];
  const {loadPyodide: load} = await import('/pyodide/pyodide.mjs');
  const loadPyodide = (o) => load({...o, stdout: (l) => lines.push(l)});
  // /wheels/ holds the pinned packaging/micropip wheels (scripts/setup.sh)
  await (new Function('loadPyodide', 'return (async () => {' + body.replace(/^import .*$/m, '') + '})()'))(loadPyodide);
  return lines;
}""", js)
        assert out[-1] == "[[15.0, 18.0, 21.0], [42.0, 54.0, 66.0], [69.0, 90.0, 111.0]]", out
    finally:
        context.close()

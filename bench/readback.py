#!/usr/bin/env python3
"""Latency where users wait: readback (.item(), tolist(), .cpu()) and sum against add, each beside raw
WebGPU in the same process (not a test; docs/readback.md).

  python bench/readback.py                      CPython + wgpu-py (Mesa lavapipe here): raw = wgpu-py
  python bench/readback.py --target chromium    Pyodide in headless Chromium (SwiftShader here): raw = JS
  python bench/readback.py --target chromium --write    also writes bench/results/readback_<target>.md/.json
  python bench/readback.py --cprofile           cProfile of tolist() and .item() by function (native)

Each figure is the median of its repetitions (the fastest in brackets); the ratios divide webtorch's
time by raw WebGPU's for the same bytes (1.0: webtorch adds nothing). The raw readback is what any
WebGPU program does: copyBufferToBuffer into a mappable buffer, map it, copy the mapped bytes out.
On a CPU adapter (lavapipe, SwiftShader) only the ratios mean something.
"""
import contextlib
import json
import sys
import time
from pathlib import Path

now = time.perf_counter
SIZES = {"native": {"reps": 20, "big": 1 << 20, "huge": 1 << 24, "sums": [1 << 20, 1 << 22, 1 << 24]},
         "chromium": {"reps": 15, "big": 1 << 20, "huge": 1 << 22, "sums": [1 << 20, 1 << 22]}}
DTYPES = ["float32", "float16", "int32", "int64", "bool", "uint8"]


def _median(fn, reps, warmup=2):
    """(median, fastest) seconds of one synchronous call."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = now()
        fn()
        times.append(now() - t0)
    times.sort()
    return times[len(times) // 2], times[0]


def webtorch_figures(cfg):
    """webtorch's side (CPython or Pyodide): {name: [median s, fastest s, bytes moved, bytes of the raw
    readback to compare with (the elements as 4-byte words; 0: none)]}."""
    import webtorch as torch
    sync = torch.webgpu.synchronize
    reps, big, huge = cfg["reps"], cfg["big"], cfg["huge"]
    out = {}
    y = torch.full((1,), 2.5, device="webgpu")
    out["item"] = [*_median(y.item, 10 * reps), 4, 4]
    x = torch.full((1024,), 1.0, device="webgpu")
    out["sum(1024).item()"] = [*_median(lambda: x.sum().item(), 10 * reps), 4, 4]
    for name in DTYPES:
        t = torch.ones(big, dtype=getattr(torch, name), device="webgpu")
        out[f"cpu() {big >> 20}M {name}"] = [*_median(t.cpu, reps), t.element_size() * big, 4 * big]
        del t
    t = torch.full((big,), 1.5, device="webgpu")
    out[f"tolist() {big >> 20}M float32"] = [*_median(t.tolist, max(3, reps // 3)), 4 * big, 4 * big]
    out[f"cpu() of a [::2] view of {big >> 20}M float32"] = [*_median(t[::2].cpu, reps), 2 * big, 2 * big]
    del t
    t = torch.ones(huge, device="webgpu")
    out[f"cpu() {huge >> 20}M float32"] = [*_median(t.cpu, max(3, reps // 3)), 4 * huge, 4 * huge]
    del t
    for n in cfg["sums"]:
        a, b = torch.ones(n, device="webgpu"), torch.ones(n, device="webgpu")
        for name, fn, passes in (("add", lambda: a + b, 3), ("sum", lambda: a.sum(), 1)):
            calls = 10

            def run():
                for _ in range(calls):
                    fn()
                sync()
            m, f = _median(run, max(3, reps // 3))
            out[f"{name} {n >> 20}M float32 (x{calls})"] = [m, f, calls * passes * 4 * n, 0]
        del a, b
    return out


def profile_item(cfg):
    """Where one .item() goes, hop by hop: {case: [[hop, median µs], ...]} for a ready value and for
    sum().item() (its kernel sent in the readback's submission). In the browser the hops are
    browser_driver.js's marks (its `marks` flag) between two performance.now() taken by Python; on the
    native driver, time.perf_counter around the driver's wgpu calls."""
    import sys
    import webtorch as torch
    from webtorch.backend import webgpu
    driver = webgpu.runtime().driver
    x = torch.full((1024,), 1.0, device="webgpu")
    y = x.sum()
    hops = _hops_browser if sys.platform == "emscripten" else _hops_native
    out = {name: hops(driver, fn, 10 * cfg["reps"]) for name, fn in
           (("item", y.item), ("sum(1024).item()", lambda: x.sum().item()))}
    if sys.platform == "emscripten":  # the floor under the suspension: Python waiting on a settled promise
        def settled():
            driver._js.parkSettled()
            driver._wait()
        out["wait on a settled promise (" + driver.wait_route + ")"] = [["total", _median(settled, 100)[0] * 1e6]]
    return out


def cprofile_figures(cfg, out=print):
    """cProfile of tolist() of cfg["big"] float32 and of .item(), per call: where the time goes by function
    (the Python object creation is array.tolist; read_buffer is the submit, the map and the copy)."""
    import cProfile
    import io
    import pstats
    import webtorch as torch
    t = torch.full((cfg["big"],), 1.5, device="webgpu")
    y = torch.full((1,), 2.5, device="webgpu")
    for name, fn, calls in ((f"tolist() {cfg['big'] >> 20}M float32", t.tolist, 5), ("item", y.item, 200)):
        fn()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(calls):
            fn()
        prof.disable()
        text = io.StringIO()
        stats = pstats.Stats(prof, stream=text)
        out(f"{name}: {stats.total_tt / calls * 1e3:.3f} ms per call under cProfile ({calls} calls)")
        stats.sort_stats("tottime").print_stats(8)
        out("\n".join(line for line in text.getvalue().splitlines() if "/" in line or "{" in line))


def _hop_medians(rounds):
    """rounds: per call, its time points [(label, seconds)]; the median of each hop (a -> b) and of the total."""
    hops = {}
    for points in rounds:
        points.sort(key=lambda p: p[1])
        for (a, ta), (b, tb) in zip(points, points[1:]):
            hops.setdefault(f"{a} → {b}", []).append(tb - ta)
        hops.setdefault("total", []).append(points[-1][1] - points[0][1])
    return [[hop, sorted(ts)[len(ts) // 2] * 1e6] for hop, ts in hops.items()]


def _hops_browser(driver, fn, reps):
    import js
    fn()
    driver._js.marks = marks = js.Array.new()
    rounds = []
    for _ in range(reps):
        marks.length = 0
        start = js.performance.now()
        fn()
        end = js.performance.now()
        m = marks.to_py()
        rounds.append([("Python call", start / 1e3), *((k, t / 1e3) for k, t in zip(m[0::2], m[1::2])),
                       ("value in Python", end / 1e3)])
    driver._js.marks = None
    return _hop_medians(rounds)


def _hops_native(driver, fn, reps):
    fn()
    guard, points = driver._guard, []

    def timed(call, *args, **kwargs):
        t0 = now()
        try:
            return guard(call, *args, **kwargs)
        finally:
            points.extend([(call.__name__ + " begins", t0), (call.__name__ + " returns", now())])
    driver._guard = timed
    rounds = []
    try:
        for _ in range(reps):
            points.clear()
            start = now()
            fn()
            rounds.append([("Python call", start), *points, ("value in Python", now())])
    finally:
        del driver._guard
    return _hop_medians(rounds)


def raw_native(cfg):
    """The raw figures through wgpu-py on its own device: {bytes: [median s, fastest s]} of a readback."""
    import wgpu
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    device = adapter.request_device_sync()
    usage = wgpu.BufferUsage
    out = {}
    for nbytes in sorted({4, 2 * cfg["big"], 4 * cfg["big"], 4 * cfg["huge"]}):
        src = device.create_buffer(size=nbytes, usage=usage.STORAGE | usage.COPY_SRC | usage.COPY_DST)
        staging = device.create_buffer(size=nbytes, usage=usage.MAP_READ | usage.COPY_DST)
        dest = bytearray(nbytes)

        def read():
            encoder = device.create_command_encoder()
            encoder.copy_buffer_to_buffer(src, 0, staging, 0, nbytes)
            device.queue.submit([encoder.finish()])
            staging.map_async("READ_NOSYNC").sync_wait()  # as wgpu-py's queue.read_buffer: no empty submit first
            dest[:] = staging.read_mapped(copy=False)
            staging.unmap()
        out[nbytes] = list(_median(read, 10 * cfg["reps"] if nbytes == 4 else cfg["reps"]))
    return out


# The raw figures in the page, on a device of its own: the same readback in JS (the mapped bytes copied
# into a new Uint8Array, as webtorch copies them into Python's memory).
RAW_JS = """async (cfg) => {
  const adapter = await navigator.gpu.requestAdapter();
  const device = await adapter.requestDevice();
  const out = {};
  const sizes = [...new Set([4, 2 * cfg.big, 4 * cfg.big, 4 * cfg.huge])].sort((a, b) => a - b);
  for (const nbytes of sizes) {
    const src = device.createBuffer({size: nbytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC});
    const staging = device.createBuffer({size: nbytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST});
    const read = async () => {
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(src, 0, staging, 0, nbytes);
      device.queue.submit([encoder.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const bytes = new Uint8Array(staging.getMappedRange()).slice();
      staging.unmap();
      return bytes;
    };
    const reps = nbytes === 4 ? 10 * cfg.reps : cfg.reps;
    for (let i = 0; i < 2; i++) await read();
    const times = [];
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      await read();
      times.push((performance.now() - t0) / 1e3);
    }
    times.sort((a, b) => a - b);
    out[nbytes] = [times[times.length >> 1], times[0]];
    src.destroy();
    staging.destroy();
  }
  device.destroy();
  return out;
}"""


@contextlib.contextmanager
def served_chromium():
    """The wheel built, the checkout served (scripts/serve.py) and headless Chromium launched with the
    browser tests' flags: yields (browser, base url)."""
    repo = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(repo / "tests" / "browser"))
    sys.path.insert(0, str(repo / "scripts"))
    import subprocess
    import serve
    from conftest import CHROMIUM_ARGS, _chromium
    from playwright.sync_api import sync_playwright
    r = subprocess.run(["bash", str(repo / "scripts" / "build_wheel.sh")], cwd=repo, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"building the wheel failed:\n{r.stdout}\n{r.stderr}")
    server, url = serve.start_server(0)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
            try:
                yield browser, url
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()


def run_chromium(cfg):
    with served_chromium() as (browser, url):
        page = browser.new_page()
        page.set_default_timeout(600_000)
        page.goto(f"{url}/tests/browser/harness.html")
        page.wait_for_function("window.harnessLoaded === true")
        page.evaluate("initPage()")
        raw = {int(k): v for k, v in page.evaluate(RAW_JS, cfg).items()}
        source = Path(__file__).read_text()
        code = f"import json\nns = {{'__name__': 'bench_readback'}}\nexec({source!r}, ns)\n" \
               f"cfg = json.loads({json.dumps(json.dumps(cfg))})\n" \
               "json.dumps([ns['webtorch_figures'](cfg), ns['profile_item'](cfg)])"
        figures, profile = json.loads(page.evaluate("(code) => runPython(code)", code))
        info = page.evaluate("runPython('import webtorch; str(webtorch.webgpu.adapter_info())')")
        version = browser.version
    return figures, profile, raw, f"Chromium {version} (Pyodide, JSPI); {info}"


def report(target, figures, profile, raw, where):
    """Markdown rows: webtorch's figure, raw WebGPU's for the same bytes, the ratio."""
    lines = [f"# Readback and reductions: webtorch vs raw WebGPU ({target})", "", f"Adapter: {where}", "",
             f"Command: `python bench/readback.py{' --target ' + target if target != 'native' else ''}`; "
             "medians (fastest in brackets) of one call; ratio = webtorch time / raw WebGPU readback of "
             "the same bytes in the same process.", "",
             "| what | webtorch | raw WebGPU | ratio | GB/s |", "|---|---|---|---|---|"]

    def fmt(s):
        return f"{s * 1e6:.0f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"
    for name, (median, fastest, nbytes, raw_bytes) in figures.items():
        if not raw_bytes:
            continue
        base = raw.get(raw_bytes)
        lines.append(f"| {name} | {fmt(median)} ({fmt(fastest)}) | {fmt(base[0])} | {median / base[0]:.2f}× | "
                     f"{nbytes / median / 1e9:.2f} |")
    lines += ["", "Reductions: `sum` against `add` over the same float32 tensors (10 calls, then one "
              "synchronize; GB/s of bytes each op must move: add 3 × 4 B, sum 4 B per element).", "",
              "| numel | add GB/s | sum GB/s | sum / add |", "|---|---|---|---|"]
    for name, (median, _, nbytes, _) in figures.items():
        if name.startswith("add"):
            n = name.split()[1]
            add = nbytes / median
            sm = next(v for k, v in figures.items() if k.startswith(f"sum {n} "))
            sum_rate = sm[2] / sm[0]
            lines.append(f"| {n} | {add / 1e9:.2f} | {sum_rate / 1e9:.2f} | {sum_rate / add:.2f} |")
    for case, hops in (profile or {}).items():
        lines += ["", f"Where `{case}` goes (profile_item: medians per hop, µs):", "", "| hop | µs |", "|---|---|"]
        lines += [f"| {hop} | {us:.1f} |" for hop, us in hops]
    return "\n".join(lines) + "\n"


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=["native", "chromium"], default="native")
    parser.add_argument("--write", action="store_true", help="write readback_<target>.md and .json into --out")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    parser.add_argument("--name", help="the results' name (default: readback_<target>)")
    parser.add_argument("--cprofile", action="store_true", help="only cProfile tolist() and .item() (native)")
    args = parser.parse_args()
    cfg = SIZES[args.target]
    if args.cprofile:
        return cprofile_figures(cfg)
    if args.target == "native":
        import webtorch
        figures = webtorch_figures(cfg)
        profile = profile_item(cfg)
        raw = raw_native(cfg)
        where = f"wgpu-py {webtorch.webgpu.adapter_info()} (webtorch from {Path(webtorch.__file__).parent})"
    else:
        figures, profile, raw, where = run_chromium(cfg)
    text = report(args.target, figures, profile, raw, where)
    print(text)
    if args.write:
        name = args.name or f"readback_{args.target}"
        (Path(args.out) / f"{name}.md").write_text(text)
        (Path(args.out) / f"{name}.json").write_text(
            json.dumps({"where": where, "webtorch": figures, "profile": profile, "raw": raw}, indent=1) + "\n")


if __name__ == "__main__":
    main()

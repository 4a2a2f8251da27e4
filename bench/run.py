#!/usr/bin/env python3
"""webtorch's benchmark runner (not a test). One run measures webtorch (Python in Pyodide), a raw-WGSL
JS baseline, tfjs-backend-webgpu and onnxruntime-web on the same adapter, and writes
bench/results/<target>.json, .md and .svg (a bar chart), printing each figure against the previous
committed results.

  python bench/run.py --target chromium           headless Chromium (SwiftShader on a CPU-only machine)
  python bench/run.py --target chromium-gpu       headless Chromium on a GPU: Node + Dawn's sizes, heated (run by
      scripts/gpu_chrome_run.sh on the device tool's GPU machine, with WEBTORCH_CHROMIUM(_ARGS) set; docs/gpu.md)
  python bench/run.py --target chromium-gpu-f16   the same, the browser started with the f16 toggle (shader-f16)
  python bench/run.py --target dawn --pack        bundle for Node + Dawn (the H200 of the device tool)
      then, on the GPU machine, from the repo root (carry .gpu and bench/results/tmp):
      source .gpu/gpu-env.sh; node --experimental-wasm-stack-switching bench/dawn.mjs \
          bench/results/tmp/dawn $OUT/dawn.json [frameworks [sections]]
  python bench/run.py --target dawn --collect PATH/dawn.json
  python bench/run.py --target chromium-gpu --collect PATH/chromium-gpu.json   (the GPU machine's $OUT)

bench/overhead.mjs times the Python side of eager ops alone (Pyodide on Node, no GPU needed).

Options: --only webtorch,raw,tfjs,ort (a subset; results are then not written unless --write);
--sections weights (the sections to run; with --write merged into the committed results:
`python bench/run.py --target chromium --only webtorch,ort --sections minilm,weights --write`).
"""
import argparse
import html
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
RESULTS = BENCH / "results"
PEERS = BENCH / "peers"
FRAMEWORKS = ["webtorch", "raw", "tfjs", "ort"]


def build_wheel():
    r = subprocess.run(["bash", str(REPO / "scripts" / "build_wheel.sh")], cwd=REPO, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"building the wheel failed:\n{r.stdout}\n{r.stderr}")
    return Path(r.stdout.strip().splitlines()[-1])


def ensure_peers():
    if not (PEERS / "node_modules" / "@tensorflow" / "tfjs-core").exists():
        print("bench: installing the peers (npm ci in bench/peers)", flush=True)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PEERS, check=True)


# ---------------------------------------------------------------- targets
def run_chromium(target, only, timeout_s, sections=None):
    sys.path.insert(0, str(REPO / "scripts"))
    import serve
    from playwright.sync_api import sync_playwright
    if not only or {"tfjs", "ort"} & set(only.split(",")):
        ensure_peers()
    wheel = build_wheel()
    server, url = serve.start_server(0)
    chromium = os.environ.get("WEBTORCH_CHROMIUM") or shutil.which("chromium-headless-shell") or \
        "/usr/bin/chromium-headless-shell"
    args = ["--no-sandbox", "--enable-unsafe-webgpu", "--disable-background-networking",
            "--disable-component-update"] + os.environ.get("WEBTORCH_CHROMIUM_ARGS", "").split()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=args)
            page = browser.new_page()
            page.on("console", lambda m: print(f"  [page] {m.text}", flush=True) if m.text.startswith("bench") or
                    m.type == "error" else None)
            q = f"target={target}&wheel=/simple/webtorch/{wheel.name}" + (f"&only={only}" if only else "") + \
                (f"&sections={sections}" if sections else "")
            page.goto(f"{url}/bench/bench.html?{q}")
            page.wait_for_function("window.benchResult !== undefined", timeout=timeout_s * 1000, polling=1000)
            result = page.evaluate("window.benchResult")
            result["browser"] = browser.version
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    if "error" in result and "frameworks" not in result:
        sys.exit(f"bench page failed: {result['error']}")
    return result


ORT_WASM = "ort-wasm-simd-threaded.asyncify"  # the wasm build that ort.webgpu.min.mjs loads (WebGPU EP)


def pack_modules(out):
    """bench/modules.json's files, fetched from scripts/serve.py as the Chromium page fetches them."""
    sys.path.insert(0, str(REPO / "scripts"))
    import serve
    out.mkdir()
    server, url = serve.start_server(0)
    try:
        for name, path in json.loads((REPO / "bench" / "modules.json").read_text()).items():
            with urllib.request.urlopen(url + path) as response:
                (out / name).write_bytes(response.read())
    finally:
        server.shutdown()
        server.server_close()


def pack_ort(out):
    """onnxruntime-web's WebGPU build in out (bench/dawn_gpu.mjs's loadOrt reads it), its 25 MB wasm
    xz-compressed to 3 MB to fit the carry limit."""
    ort = PEERS / "node_modules" / "onnxruntime-web" / "dist"
    out.mkdir(parents=True)
    shutil.copy(ort / "ort.webgpu.min.mjs", out)
    shutil.copy(ort / f"{ORT_WASM}.mjs", out)
    with open(out / f"{ORT_WASM}.wasm.xz", "wb") as f:
        subprocess.run(["xz", "-T0", "-c", str(ort / f"{ORT_WASM}.wasm")], stdout=f, check=True)


def pack_dawn():
    """bench/results/tmp/dawn: Pyodide, the wheel, tfjs's two UMD files and onnxruntime-web's WebGPU build
    (pack_ort; dawn.mjs unpacks its wasm) (git-ignored; carried)."""
    out = RESULTS / "tmp" / "dawn"
    shutil.rmtree(out, ignore_errors=True)
    (out / "tfjs").mkdir(parents=True)
    ensure_peers()
    wheel = build_wheel()
    shutil.copy(wheel, out / wheel.name)
    pyo = REPO / "node_modules" / "pyodide"
    shutil.copytree(pyo, out / "pyodide", ignore=shutil.ignore_patterns("*.map", "*.html", "*.d.ts", "README.md"))
    tf = PEERS / "node_modules" / "@tensorflow"
    shutil.copy(tf / "tfjs-core" / "dist" / "tf-core.es2017.min.js", out / "tfjs")
    shutil.copy(tf / "tfjs-backend-webgpu" / "dist" / "tf-backend-webgpu.es2017.min.js", out / "tfjs")
    pack_ort(out / "ort")
    pack_modules(out / "modules")
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"bench: packed {out.relative_to(REPO)} ({size / 2**20:.1f} MiB). Also run: bash ../shared/gpu/pack.sh")
    print("device run (carry .gpu and bench/results/tmp):\n  source .gpu/gpu-env.sh; "
          "node --experimental-wasm-stack-switching bench/dawn.mjs bench/results/tmp/dawn $OUT/dawn.json")


# ---------------------------------------------------------------- results
def metrics(fw):
    """A framework's result as {metric name: (value, unit, higher is better)}."""
    m = {}
    if not isinstance(fw, dict) or "error" in fw and len(fw) == 1:
        return m
    for r in fw.get("matmul", []) if isinstance(fw.get("matmul"), list) else []:
        if "gflops" in r:
            m[f"matmul {r['shape']}"] = (r["gflops"], "GFLOP/s", True)
    for r in fw.get("chain", []) if isinstance(fw.get("chain"), list) else []:
        m[f"chain of 1000 ops, {r['numel']} el: per op"] = (r["us_per_op"], "µs", False)
        if "us_per_op_compiled" in r:
            m[f"chain of 1000 ops, {r['numel']} el: per op, webtorch.compile"] = (r["us_per_op_compiled"], "µs", False)
        if "us_per_op_python" in r:
            m[f"chain, {r['numel']} el: Python time per op (no sync)"] = (r["us_per_op_python"], "µs", False)
        if "ffi_calls_per_op" in r:
            m[f"chain, {r['numel']} el: FFI calls per op"] = (r["ffi_calls_per_op"], "calls", False)
    for r in fw.get("bandwidth", []) if isinstance(fw.get("bandwidth"), list) else []:
        # the op's name without its parenthesised detail ("copy (clone)" and raw's "copy (copyBufferToBuffer)"
        # are one metric)
        name = f"{r['op'].split(' (')[0]} {_count(r['numel'])}"
        name += f" {r['dtype']}" if r.get("dtype", "float32") != "float32" else ""
        m[name] = (r["gbps"], "GB/s", True)
        if "kernel_gbps" in r:  # by kernel timestamps: the GPU's figure without the host's time per call
            m[f"{name}, kernel time"] = (r["kernel_gbps"], "GB/s", True)
    for r in fw.get("transfer", []) if isinstance(fw.get("transfer"), list) else []:
        m[f"upload {r['mb']} MB"] = (r["upload_gbps"], "GB/s", True)
        m[f"download {r['mb']} MB"] = (r["download_gbps"], "GB/s", True)
    for r in fw.get("minilm", []) if isinstance(fw.get("minilm"), list) else []:
        m[r["name"]] = (r["ms"], "ms", False)
    for r in fw.get("weights", []) if isinstance(fw.get("weights"), list) else []:
        m[r["name"]] = (r["ms"], "ms", False)
        m[r["name"].split(",")[0] + ": host memory peak / file size"] = (r["host_peak_ratio"], "×", False)
    for r in fw.get("demos", []) if isinstance(fw.get("demos"), list) else []:
        for key, unit in (("steps_per_s", "steps/s"), ("tokens_per_s", "tokens/s"), ("chars_per_s", "chars/s")):
            if key in r:
                m[f"{r['name']}: {unit}"] = (r[key], unit, True)
        if "ms" in r:
            m[r["name"]] = (r["ms"], "ms", False)
    for r in fw.get("models", []) if isinstance(fw.get("models"), list) else []:
        m[r["name"]] = (r["gflops"], "GFLOP/s", True) if "gflops" in r else (r["ms"], "ms", False)
    for r in fw.get("build", []) if isinstance(fw.get("build"), list) else []:
        m[f"build {r['name']} on cpu, then .to(webgpu)"] = (r["ms_cpu_then_to"], "ms", False)
        m[f"build {r['name']} with device=webgpu"] = (r["ms_on_webgpu"], "ms", False)
    for r in fw.get("matmul_f16", []) if isinstance(fw.get("matmul_f16"), list) else []:
        m[f"matmul {r['n']}³ {r['case']}"] = (r["tflops"], "TFLOP/s", True)
    for r in fw.get("float16_speed", []) if isinstance(fw.get("float16_speed"), list) else []:
        name = f"{r['op']} {'x'.join(_count(n) if n >= 1 << 16 else str(n) for n in r['shape'])}"
        m[f"{name} float32"] = (r["ms_float32"], "ms", False)
        m[f"{name} float16 ({r['float16']})"] = (r["ms_float16"], "ms", False)
        m[f"{name}: float16 ({r['float16']}) time / float32 time"] = (r["float16_over_float32"], "×", False)
    for d in fw.get("decode", []) if isinstance(fw.get("decode"), list) else []:
        name = f"{d['model']} {d['quant']} {d['dtype']}"
        m[f"{name}: prefill {d['context']} tokens"] = (d["prefill_tokens_per_s"], "tokens/s", True)
        for key, how in (("greedy", "a readback per token"), ("greedy_readback_every_8", "a readback per 8 tokens")):
            if key in d:
                m[f"{name}: greedy decode at {d['context']} context, {how}"] = (
                    d[key]["decode_tokens_per_s"], "tokens/s", True)
        m[f"{name}: GPU memory / (weights + KV cache) at {d['context']} context"] = (
            d["gpu_memory"]["allocated_ratio"], "×", False)
    item = fw.get("item")
    if isinstance(item, dict) and "us_sum_then_item" in item:
        m["sum + .item() round trip"] = (item["us_sum_then_item"], "µs", False)
        if "us_item" in item:
            m[".item() of a ready value"] = (item["us_item"], "µs", False)
        if "us_sum_dispatch" in item:
            m["sum (1024 floats) dispatched, not waited for"] = (item["us_sum_dispatch"], "µs", False)
        if "us_sum_then_item_async" in item:
            m["sum + await .item_async() round trip"] = (item["us_sum_then_item_async"], "µs", False)
            m["await .item_async() of a ready value"] = (item["us_item_async"], "µs", False)
        if "ms_tolist_1m" in item:
            m["tolist() of 1M floats"] = (item["ms_tolist_1m"], "ms", False)
        if "us_resolved_promise_direct" in item:  # the floor of .item(): no GPU
            m["floor: .item()'s wait on a resolved JS promise"] = (item["us_resolved_promise_direct"], "µs", False)
        if "us_resolved_promise" in item:  # no GPU, Python waits on a resolved JS promise
            m["floor: run_sync(resolved JS promise)"] = (item["us_resolved_promise"], "µs", False)
            m["floor: await resolved JS promise"] = (item["us_resolved_promise_async"], "µs", False)
    return m


def _count(n):
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"


def _fmt(v):
    if v is None:
        return "—"
    return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def previous(target):
    """The last committed results of this target (git HEAD), else the file on disk."""
    rel = f"bench/results/{target}.json"
    try:
        r = subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=REPO, capture_output=True, text=True)
    except OSError:  # no git (the GPU machine's copy of the tree)
        r = None
    if r and r.returncode == 0:
        return json.loads(r.stdout)
    p = REPO / rel
    return json.loads(p.read_text()) if p.exists() else None


def table(result, prev):
    fws = [f for f in FRAMEWORKS if f in result["frameworks"]]
    per = {f: metrics(result["frameworks"][f]) for f in fws}
    prev_wt = metrics(prev["frameworks"].get("webtorch", {})) if prev else {}
    names = list(dict.fromkeys(n for f in fws for n in per[f]))
    head = ["metric", "unit"] + fws + ["webtorch before", "change"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in names:
        unit, hib = next((per[f][n][1], per[f][n][2]) for f in fws if n in per[f])
        row = [n, unit] + [_fmt(per[f][n][0]) if n in per[f] else "—" for f in fws]
        now_v = per.get("webtorch", {}).get(n, (None,))[0]
        before = prev_wt.get(n, (None,))[0]
        change = ""
        if now_v is not None and before:
            ratio = now_v / before if hib else before / now_v
            change = f"{ratio:.2f}× {'better' if ratio > 1.05 else 'worse' if ratio < 0.95 else 'same'}"
        lines.append("| " + " | ".join(row + [_fmt(before), change]) + " |")
    return "\n".join(lines)


def _sections_by_run(result):
    """(run start, [sections]) of the sections merge_sections took from later runs."""
    runs = {}
    for name, when in result.get("section_runs", {}).items():
        runs.setdefault(when, []).append(name)
    return sorted(runs.items())


def report(result, target):
    adapter = result["frameworks"].get("webtorch", {}).get("adapter", {})
    prev = previous(target)
    errors = {f: v["error"].splitlines()[0] for f, v in result["frameworks"].items() if isinstance(v, dict) and
              "error" in v}
    md = [f"# webtorch benchmark: {target}", "",
          f"- run: {result.get('started', '')}; adapter: {json.dumps(adapter)}",
          *[f"- sections {', '.join(names)} from the run of {when}" for when, names in _sections_by_run(result)],
          f"- browser: {result.get('browser', 'Node + Dawn (npm webgpu)' if target == 'dawn' else '')}",
          f"- previous committed run: {prev.get('started', '?') if prev else 'none'}",
          "- columns: webtorch = Python in Pyodide through webtorch; raw = the same work in plain JS WebGPU "
          "(raw WGSL, no Python); tfjs = @tensorflow/tfjs-backend-webgpu; ort = onnxruntime-web, WebGPU EP",
          ""]
    cfg = result.get("config", {})
    if "rounds" in cfg:
        md.insert(-1, f"- timing (bench/timing.mjs, every column): the median of {cfg['rounds']} timed rounds after a "
                      f"warm-up call, the GPU brought to its full clock (up to {cfg['heat_ms']} ms of load) and "
                      f"{cfg['warm_ms']} ms of warm-up calls; each row's fastest and slowest round are in the JSON")
    heat = result.get("heat")
    if heat and heat.get("calls"):
        md.insert(-1, f"- GPU heater: {heat['calls']} heats, {heat['ms_total'] / 1e3:.1f} s in all; it found the GPU "
                      f"below its full clock {heat['slow_starts']} times")
    md += [f"- {note}" for note in result.get("config", {}).get("notes", [])]
    for f, e in errors.items():
        md.append(f"- **{f} did not run**: {e}")
    md += ["", table(result, prev), ""]
    wt = result["frameworks"].get("webtorch", {})
    if isinstance(wt, dict) and "stats" in wt:
        md.append(f"webtorch stats at the end: {json.dumps(wt['stats'])}")
    return "\n".join(md) + "\n"


COLORS = {"webtorch": "#d1495b", "raw": "#4c6a92", "tfjs": "#edae49", "ort": "#66a182"}


def plot(result, target):
    """The run as a dependency-free SVG: each metric that webtorch shares with another column, one bar
    per column, its length the fraction of the best figure (the longest bar is the best), with its value."""
    per = {f: metrics(result["frameworks"][f]) for f in FRAMEWORKS if f in result["frameworks"]}
    fws = [f for f in per if per[f]]  # columns that ran
    names = [n for n in dict.fromkeys(n for f in fws for n in per[f])
             if n in per.get("webtorch", {}) and sum(n in per[f] for f in fws) > 1]
    label_w, bar_w, bar_h = 330, 300, 10
    body, y = [], 46
    for n in names:
        present = [f for f in fws if n in per[f]]
        unit, hib = per[present[0]][n][1:]
        values = {f: per[f][n][0] for f in present}
        best = max(values.values()) if hib else min(values.values())
        body.append(f'<text x="{label_w - 8}" y="{y + (bar_h + 2) * len(present) / 2 + 3:.0f}" '
                    f'text-anchor="end">{html.escape(n)} ({html.escape(unit)})</text>')
        for f in present:
            v = values[f]
            frac = (v / best if hib else best / v) if v > 0 and best > 0 else 0
            w = max(1.0, frac * bar_w)
            body.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{COLORS[f]}"/>'
                        f'<text x="{label_w + w + 4:.1f}" y="{y + bar_h - 1}">{_fmt(v)}</text>')
            y += bar_h + 2
        y += 8
    legend = "".join(f'<rect x="{label_w + 80 * i}" y="22" width="10" height="10" fill="{COLORS[f]}"/>'
                     f'<text x="{label_w + 80 * i + 14}" y="31">{f}</text>' for i, f in enumerate(fws))
    width = label_w + bar_w + 60
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 8}" '
            f'font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n'
            f'<text x="8" y="14" font-weight="bold">webtorch benchmark: {html.escape(target)} '
            f'({html.escape(result.get("started", ""))}); bar = fraction of the best column</text>\n'
            f'{legend}\n' + "\n".join(body) + "\n</svg>\n")


def write(result, target):
    RESULTS.mkdir(parents=True, exist_ok=True)
    md = report(result, target)
    (RESULTS / f"{target}.json").write_text(json.dumps(result, indent=1) + "\n")
    (RESULTS / f"{target}.md").write_text(md)
    (RESULTS / f"{target}.svg").write_text(plot(result, target))
    for section in ("minilm", "models"):
        profiles = profile_tables(result, section)
        if profiles:
            (RESULTS / f"{target}-{section}-profile.txt").write_text(profiles)
    print(md)
    print(f"bench: wrote bench/results/{target}.json, .md and .svg")


def profile_tables(result, section):
    """webtorch.profiler's tables of a section's profiled rows (the MiniLM forwards; the float16 encoder
    layer of "models"), each under its figure."""
    runs = result["frameworks"].get("webtorch", {}).get(section)
    if not isinstance(runs, list):
        return ""
    started = result.get("section_runs", {}).get(section, result.get("started", ""))
    return "\n".join(f"{r['name']}: {r['ms']:.2f} ms per forward (run {started}; GPU time by {r['gpu_timing']})\n"
                     f"{r['profile']}" for r in runs if "profile" in r)


def merge_sections(result, prev, sections):
    """The previous results with the given sections of each framework that ran replaced by this run's."""
    if not prev:
        return result
    prev["config"] = result["config"]
    for fw, figures in result["frameworks"].items():
        if not isinstance(figures, dict) or "error" in figures and len(figures) == 1:
            continue
        for name in sections:
            if name in figures:
                prev["frameworks"].setdefault(fw, {})[name] = figures[name]
    for name in sections:
        prev.setdefault("section_runs", {})[name] = result["started"]
    if "heat" in result:
        prev["heat"] = result["heat"]
    return prev


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", choices=["chromium", "chromium-gpu", "chromium-gpu-f16", "dawn"], default="chromium")
    ap.add_argument("--only", help="comma-separated subset of " + ",".join(FRAMEWORKS))
    ap.add_argument("--write", action="store_true", help="write results even with --only")
    ap.add_argument("--sections", help="the sections to run (with --write, or --collect of a run of these sections: "
                                       "merged into the committed results, the other figures kept), e.g. weights")
    ap.add_argument("--pack", action="store_true", help="dawn: build the bundle for the GPU machine")
    ap.add_argument("--collect", type=Path, help="dawn, chromium-gpu: the JSON a device run wrote")
    ap.add_argument("--timeout", type=int, default=1800)
    a = ap.parse_args(argv)
    if a.target == "dawn" and a.pack:
        return pack_dawn()
    if a.collect:
        result = json.loads(a.collect.read_text())
    elif a.target == "dawn":
        ap.error("--target dawn needs --pack or --collect")
    else:
        t0 = time.time()
        result = run_chromium(a.target, a.only, a.timeout, a.sections)
        print(f"bench: {time.time() - t0:.0f} s")
    if a.sections and (a.write or a.collect):
        result = merge_sections(result, previous(a.target), a.sections.split(","))
    if a.only and not a.write:
        print(report(result, a.target))
        print(json.dumps(result, indent=1)[:20000])
        return
    write(result, a.target)


if __name__ == "__main__":
    main()

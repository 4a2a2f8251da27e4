"""webtorch's side of the benchmark: runs inside Pyodide (Chromium page, or Node + Dawn).

`run(cfg)` returns a dict of figures; cfg (from bench/suite.mjs) holds the sizes for this target.
Timing: time.perf_counter around many repetitions, closed by webtorch.webgpu.synchronize()
(a 4-byte readback through JSPI), so each figure includes the GPU's work; _timed follows the rule of
every framework's figures (bench/timing.mjs): a warm-up call, the GPU heated, cfg["warm_ms"] more of
warm-up calls, then cfg["rounds"] timed rounds, the median round reported with the fastest and slowest.
"""
import array
import ast
import gc
import inspect
import json
import time

import webtorch as torch
from webtorch import _dtypes as dt
from webtorch.backend import gpu
from webtorch.backend import webgpu as rt_mod

sync = torch.webgpu.synchronize
now = time.perf_counter


def _ffi_calls():
    return getattr(rt_mod.runtime().driver, "ffi_calls", None)


_cfg = {}  # run()'s cfg: rounds, heat_ms, warm_ms


def _heat():
    """bench/timing.mjs's GPU heater, the one every framework's timing uses (on the H200 a GPU idle for
    ~2 s runs at 345 MHz, and returns to 1980 only under sustained load); nothing where heat_ms is 0."""
    if _cfg.get("heat_ms"):
        import bench_inputs
        from pyodide.ffi import run_sync
        run_sync(bench_inputs.heat())


def _timed(fn, reps, warmup=1, rounds=None):
    """ms per call of `rounds` (default cfg["rounds"]) timed rounds of `reps` calls after `warmup`
    calls, the heat and cfg["warm_ms"] of synchronised calls: {"ms": the median round, "ms_min", "ms_max"}."""
    for _ in range(warmup):
        fn()
    sync()
    _heat()
    t0 = now()
    while now() - t0 < _cfg.get("warm_ms", 0) / 1e3:
        fn()
        sync()
    times = []
    for _ in range(rounds or _cfg.get("rounds", 3)):
        t0 = now()
        for _ in range(reps):
            fn()
        sync()
        times.append((now() - t0) / reps * 1e3)
    times.sort()
    n = len(times)
    return {"ms": (times[(n - 1) // 2] + times[n // 2]) / 2, "ms_min": times[0], "ms_max": times[-1]}


def matmul(cfg):
    out = []
    for m, k, n in cfg["matmul"]:
        a = torch.full((m, k), 0.5, device="webgpu")
        b = torch.full((k, n), 0.25, device="webgpu")
        flops = 2.0 * m * n * k
        reps = max(1, min(cfg.get("max_reps", 20), int(cfg["matmul_flop_budget"] / flops)))
        t = _timed(lambda: torch.matmul(a, b), reps)
        out.append({"shape": f"{m}x{k}x{n}", **t, "gflops": flops / t["ms"] / 1e6, "reps": reps})
        del a, b
    return out


def run_on(y, n_ops):
    """The chain: n_ops elementwise ops, each on the previous result."""
    for i in range(n_ops // 2):
        y = y + 1.0
        y = y * 0.5
    return y


def chain(cfg):
    """1000 small elementwise ops, each on the previous result: dispatch-bound."""
    out = []
    for numel in cfg["chain_sizes"]:
        x = torch.full((numel,), 1.0, device="webgpu")
        n_ops = cfg["chain_ops"]

        def run():
            return run_on(x, n_ops)
        run()
        sync()
        calls0, k0 = _ffi_calls(), rt_mod.runtime().kernels_dispatched
        run()
        sync()
        calls1, k1 = _ffi_calls(), rt_mod.runtime().kernels_dispatched
        chain_ms = _timed(run, 1, warmup=0)["ms"]
        # Python-side cost alone: the same chain, timed without the final synchronisation.
        t0 = now()
        y = run()
        py_s = now() - t0
        sync()
        del y
        row = {"numel": numel, "us_per_op": chain_ms / n_ops * 1e3, "us_per_op_python": py_s / n_ops * 1e6,
               "kernels_per_op": (k1 - k0) / n_ops}
        if calls0 is not None:
            row["ffi_calls_per_op"] = (calls1 - calls0) / n_ops
        # The same chain through webtorch.compile: recorded at its first call, replayed after (its
        # ops fused into one kernel); timed like the eager chain, one call and its synchronisation.
        compiled = torch.compile(lambda x: run_on(x, n_ops))
        compiled(x)
        row["us_per_op_compiled"] = _timed(lambda: compiled(x), 1)["ms"] / n_ops * 1e3
        row["kernels_per_op_compiled"] = _kernels_of(lambda: compiled(x)) / n_ops
        out.append(row)
    return out


def bandwidth(cfg):
    """GB/s of bytes moved (read + written) by memory-bound ops, float32 at every cfg["bw_sizes"] and
    float16 (where the adapter offers shader-f16) at those of cfg["bw_f16_sizes"]."""
    out = []
    runs = [(torch.float32, n) for n in cfg["bw_sizes"]]
    if torch.webgpu.has_float16():
        runs += [(torch.float16, n) for n in cfg.get("bw_f16_sizes", [])]
    for dtype, numel in runs:
        size = 2 if dtype is torch.float16 else 4
        a = torch.full((numel,), 1.0, device="webgpu", dtype=dtype)
        b = torch.full((numel,), 2.0, device="webgpu", dtype=dtype)
        rows = cfg.get("softmax_row", 1024)
        weight = torch.full((rows,), 1.5, device="webgpu", dtype=dtype)
        bias = torch.full((rows,), 0.5, device="webgpu", dtype=dtype)
        reps = max(2, min(cfg.get("max_reps", 20), int(cfg["bw_byte_budget"] / (3.0 * size * numel))))
        cases = [
            ("add", lambda: a + b, 3),
            ("sum", lambda: a.sum(), 1),
            # a column reduction: the bias gradient of a linear layer, mean(0), batch-norm statistics
            ("sum dim 0 (numel/4096 x 4096)", lambda: a.view(-1, 4096).sum(0), 1),
            # a row reduction: a loss per sample, a norm's statistics, logsumexp's max
            ("sum dim 1 (numel/4096 x 4096)", lambda: a.view(-1, 4096).sum(1), 1),
            ("softmax", lambda: torch.softmax(a.view(-1, rows), -1), 2),
            ("layer_norm", lambda: torch.nn.functional.layer_norm(a.view(-1, rows), (rows,), weight, bias), 2),
            ("copy (clone)", lambda: a.clone(), 2),
        ]
        for name, fn, passes in cases:
            t = _timed(fn, reps)
            row = {"op": name, "numel": numel, "dtype": str(dtype).split(".")[-1], **t,
                   "gbps": passes * size * numel / t["ms"] / 1e6, "kernels": _kernels_of(fn)}
            kernel_s = _kernel_seconds(fn)
            if kernel_s:
                row["kernel_gbps"] = passes * size * numel / kernel_s / 1e9
            out.append(row)
        del a, b
    return out


def complex(cfg):
    """Complex numbers (issue 24): the complex64 multiply's GB/s against a float32 copy's at
    cfg["complex_sizes"] elements (read 2 x 8 bytes, write 8 per element; the copy reads and writes 4),
    and fft of 2**cfg["fft_log2"] complex64 points against the same transform as a DFT matmul, timed at
    2**cfg["dft_log2"] points (its n x n matrix) and scaled by n^2 to 2**fft_log2 points (the matrix there
    would not fit)."""
    out = {"multiply": [], "fft": []}
    for numel in cfg.get("complex_sizes", [1 << 20]):
        a = torch.randn(numel, dtype=torch.complex64, device="webgpu")
        b = torch.randn(numel, dtype=torch.complex64, device="webgpu")
        f = torch.full((numel,), 1.0, device="webgpu")
        reps = max(2, min(cfg.get("max_reps", 20), int(cfg["bw_byte_budget"] / (24.0 * numel))))
        mul, copy = _timed(lambda: a * b, reps), _timed(lambda: f.clone(), reps)
        out["multiply"].append({"numel": numel, "mul_ms": mul["ms"], "mul_gbps": 24 * numel / mul["ms"] / 1e6,
                                "copy_ms": copy["ms"], "copy_gbps": 8 * numel / copy["ms"] / 1e6,
                                "kernels": _kernels_of(lambda: a * b)})
        del a, b, f
    n, m = 1 << cfg.get("fft_log2", 16), 1 << cfg.get("dft_log2", 11)
    x = torch.randn(n, dtype=torch.complex64, device="webgpu")
    fft_t = _timed(lambda: torch.fft.fft(x), 2)
    k = torch.arange(m, device="webgpu", dtype=torch.float32)
    dft = torch.polar(torch.ones(m, m, device="webgpu"), torch.outer(k, k) * (-2 * 3.141592653589793 / m))
    y = torch.randn(m, dtype=torch.complex64, device="webgpu")
    dft_t = _timed(lambda: dft @ y, 2)
    scaled = dft_t["ms"] * (n / m) ** 2
    out["fft"].append({"points": n, "fft_ms": fft_t["ms"], "fft_kernels": _kernels_of(lambda: torch.fft.fft(x)),
                       "dft_points": m, "dft_ms": dft_t["ms"], "dft_ms_scaled_to_points": scaled,
                       "speedup": scaled / fft_t["ms"]})
    return out


def reductions(cfg):
    """Where a sum's time goes (issue 28), at each of cfg["reduce_sizes"] float32 elements: the wall time per
    call (timed like every figure), the Python time per call (the same calls, not waited for) and each
    kernel's GPU time by timestamps; first with webtorch's own choice of first-pass chunk, then with each of
    cfg["reduce_chunks"] (elements per workgroup of the first pass; the second folds the partials), and
    `add` of the same tensors beside it (one kernel, 3x the bytes)."""
    out = []
    chosen = gpu._reduce_chunk
    for numel in cfg.get("reduce_sizes", [1 << 20, 1 << 24, 1 << 26]):
        a = torch.full((numel,), 1.0, device="webgpu")
        reps = max(2, min(cfg.get("max_reps", 20), int(cfg["bw_byte_budget"] / (12.0 * numel))))
        for chunk in [None] + [c for c in cfg.get("reduce_chunks", [4096, 16384, 32768, 65536, 131072]) if c < numel]:
            gpu._reduce_chunk = chosen if chunk is None else \
                (lambda n_out, row_len, c=chunk: c if n_out == 1 and row_len > c else chosen(n_out, row_len))
            gpu._REDUCE_PLANS.clear()
            out.append({"op": "sum", "numel": numel, "chunk": chunk or "webtorch's",
                        **_where_time_goes(lambda: a.sum(), reps, 4 * numel)})
        gpu._reduce_chunk = chosen
        gpu._REDUCE_PLANS.clear()
        out.append({"op": "add", "numel": numel, **_where_time_goes(lambda: a + a, reps, 12 * numel)})
        del a
    return out


def _where_time_goes(fn, reps, nbytes):
    """fn's wall time per call (_timed), Python time per call (reps calls, then one wait) and GPU time per
    call of each of its kernels (timestamps), in us; GB/s of nbytes by the wall time and by the kernels'."""
    t = _timed(fn, reps)
    sync()
    t0 = now()
    for _ in range(reps):
        fn()
    python_us = (now() - t0) / reps * 1e6
    sync()
    from webtorch.profiler import profile
    calls = 5
    with profile() as prof:
        for _ in range(calls):
            fn()
    kernels = {r.key: r.self_gpu_time_total / calls for r in prof.key_averages() if r.is_kernel}
    kernel_us = sum(kernels.values())
    return {"wall_us": t["ms"] * 1e3, "gbps": nbytes / t["ms"] / 1e6, "python_us": python_us,
            "kernel_us": kernel_us, "kernel_gbps": nbytes / kernel_us / 1e3 if kernel_us else None,
            "kernels_us": kernels, "timing": prof.gpu_timing}


def matmul_f16(cfg):
    """float16 matmul (native or emulated) at cfg["f16_matmul"] sizes against float32 ("highest"), on the tensor
    cores where the adapter offers f16 subgroup matrices, and on the portable kernels with the feature hidden;
    float32 at "high" / "medium" too. err: max |C - C_ref| / (|A| @ |B|) elementwise, C_ref the float32 kernel's
    product of the same (f16-rounded for f16 rows) values."""
    rt = rt_mod.runtime()
    feature = "chromium-experimental-subgroup-matrix"
    info = torch.webgpu.adapter_info()
    half = f"float16 ({info['float16']})"  # native, or emulated: stored as float32, rounded to half per op
    # the tensor cores take float16 where the adapter has shader-f16 and an f16 -> f32 configuration (gpu.py)
    f16_tensor_cores = feature in rt.features and torch.webgpu.has_float16() and any(
        c["component_type"] == "f16" and c["result_component_type"] == "f32" for c in info["subgroup_matrix_configs"])
    out = []
    for n in cfg.get("f16_matmul", [4096]):
        a, b = torch.randn(n, n, device="webgpu"), torch.randn(n, n, device="webgpu")
        flops = 2.0 * n ** 3
        reps = max(1, min(cfg.get("max_reps", 20), int(cfg["matmul_flop_budget"] / flops)))
        a16, b16 = a.half(), b.half()
        bound = a.abs() @ b.abs()
        runs = [("float32 highest", a, b, "highest", True), ("float32 high", a, b, "high", True),
                ("float32 medium", a, b, "medium", True), (f"{half}, subgroup matrices", a16, b16, "highest", True),
                (f"{half}, portable kernels", a16, b16, "highest", False)]
        refs = {torch.float16: a16.float() @ b16.float(), torch.float32: a @ b}  # the float32 kernel's
        for name, x, y, precision, tensor_cores in runs:
            if name == f"{half}, subgroup matrices" and not f16_tensor_cores:
                continue
            saved = rt.features
            if not tensor_cores:
                rt.features = saved - {feature}
            torch.set_float32_matmul_precision(precision)
            try:
                t = _timed(lambda: x @ y, reps)
                k0 = rt.kernels_dispatched
                c = (x @ y).float()
                kernel = rt.kernels_dispatched - k0
                err = ((c - refs[x.dtype]).abs() / bound).max().item()
                out.append({"n": n, "case": name, "ms": t["ms"], "tflops": flops / t["ms"] / 1e9, "err": err,
                            "launches": kernel})
            finally:
                rt.features = saved
                torch.set_float32_matmul_precision("highest")
    return out


def float16_speed(cfg):
    """float16 against float32 on the same adapter, native (shader-f16) or emulated (stored as float32, each
    op's result rounded to half): ms per call of an elementwise add of cfg["f16_add"] elements and of an MLP's
    forward (linear, gelu, linear: cfg["f16_mlp"] = tokens, width, hidden), with the float16 / float32 time
    ratio (issue 26: emulated float16 within 1.2x of float32's speed)."""
    numel = cfg.get("f16_add", 1 << 20)
    tokens, width, hidden = cfg.get("f16_mlp", [512, 256, 1024])

    def randn(*shape, dtype, scale=1.0):
        return torch.randn(*shape, device="webgpu", dtype=dtype) * scale
    cases = [  # name, shape, the inputs in a dtype, the work
        ("add", [numel], lambda dtype: [randn(numel, dtype=dtype), randn(numel, dtype=dtype)], lambda a, b: a + b),
        ("MLP forward (linear, gelu, linear)", [tokens, width, hidden],
         lambda dtype: [randn(tokens, width, dtype=dtype), randn(hidden, width, dtype=dtype, scale=width ** -0.5),
                        randn(width, hidden, dtype=dtype, scale=hidden ** -0.5)],
         lambda x, w1, w2: torch.nn.functional.gelu(x @ w1.T) @ w2.T)]
    out = []
    for name, shape, make, work in cases:
        ms = {}
        for dtype in ("float32", "float16"):
            args = make(getattr(torch, dtype))
            ms[dtype] = _timed(lambda: work(*args), cfg.get("max_reps", 20))["ms"]
        out.append({"op": name, "shape": shape, "float16": torch.webgpu.adapter_info()["float16"],
                    "ms_float32": ms["float32"], "ms_float16": ms["float16"],
                    "float16_over_float32": ms["float16"] / ms["float32"]})
    return out


def decode(cfg):
    """Issue 27's decode in this browser: per entry of cfg["decode"], bench/hf_decode.py's model (webtorch.hf's
    Llama-family model at the entry's shape, random weights built on "webgpu", quantized by webtorch.ao: int4,
    group 64) with float16 activations where the adapter offers shader-f16 and float32 otherwise, built once
    and measured at each of the entry's contexts: hf_decode.measure's prefill tokens/s of that many tokens,
    greedy decode tokens/s after it (one readback per token and one per 8), the GPU memory and the step's
    GPU time by kernel (hf_decode.step_kernels). A row per (model, context)."""
    import hf_decode
    dtype = torch.float16 if torch.webgpu.has_float16() else torch.float32
    rows = []
    for spec in cfg["decode"]:
        t0 = now()
        model = hf_decode.build(spec["model"], dtype, spec["quant"])
        sync()
        built = {"model": spec["model"], "quant": spec["quant"], "dtype": str(dtype).split(".")[-1],
                 "new": spec["new"], "build_s": now() - t0, "weight_bytes": hf_decode.weight_bytes(model)}
        for context in spec["contexts"]:
            row = dict(built, context=context)
            row.update(hf_decode.measure(model, context, spec["new"], readback_every=8, modes=("greedy",),
                                         heat_s=_cfg.get("heat_ms", 0) / 1e3))
            row["step_kernels"] = hf_decode.step_kernels(model, 4)
            rows.append(row)
        del model
        torch.webgpu.empty_cache()
    return rows


def _kernel_seconds(fn, calls=5):
    """The GPU time of fn's kernels per call, by kernel timestamps (webtorch.profiler; None where the
    adapter lacks timestamp-query): the device's own figure, without the Python and submit time per call
    that the wall clock includes (at 16M float16 elements an op's kernels take ~10-40 us of it)."""
    from webtorch.profiler import profile
    with profile() as prof:
        for _ in range(calls):
            fn()
    if prof.gpu_timing != "timestamp-query":
        return None
    return sum(r.self_gpu_time_total for r in prof.key_averages() if r.is_kernel) / calls / 1e6


def _kernels_of(fn):
    k0 = rt_mod.runtime().kernels_dispatched
    fn()
    return rt_mod.runtime().kernels_dispatched - k0


def transfer(cfg):
    out = []
    for mb in cfg["transfer_mb"]:
        numel = mb * (1 << 18)
        host = array.array("f")
        host.frombytes(bytes(numel * 4))
        reps = cfg.get("transfer_reps", 3)

        def up():
            s = gpu.from_host(dt.float32, host)
            sync()
            return s
        up()
        _heat()
        t0 = now()
        for _ in range(reps):
            s = up()
        t_up = (now() - t0) / reps
        gpu.to_host(s, 0, numel)
        t0 = now()
        for _ in range(reps):
            gpu.to_host(s, 0, numel)
        t_down = (now() - t0) / reps
        out.append({"mb": mb, "upload_ms": t_up * 1e3, "upload_gbps": numel * 4 / t_up / 1e9,
                    "download_ms": t_down * 1e3, "download_gbps": numel * 4 / t_down / 1e9})
        del s, host
    return out


async def item(cfg):
    """A 4-byte readback after a small reduction, and of a ready value: synchronously (Python
    suspends on the readback's promise, by the route the driver picked) and awaited (item_async);
    and tolist() of 1M floats (readback plus the conversion to a Python list)."""
    x = torch.full((1024,), 1.0, device="webgpu")
    y = x.sum()
    y.item()
    await y.item_async()
    _heat()
    reps = cfg.get("item_reps", 50)
    out = {}
    for name, fresh in (("us_sum_then_item", True), ("us_item", False)):
        t0 = now()
        for _ in range(reps):
            if fresh:
                y = x.sum()
            y.item()
        out[name] = (now() - t0) / reps * 1e6
        t0 = now()
        for _ in range(reps):
            if fresh:
                y = x.sum()
            await y.item_async()
        out[name + "_async"] = (now() - t0) / reps * 1e6
    t0 = now()
    for _ in range(reps):  # the sum's own Python (recorded, not waited for): what sum + .item() adds to .item()
        y = x.sum()
    out["us_sum_dispatch"] = (now() - t0) / reps * 1e6
    sync()
    big = torch.full((1 << 20,), 1.5, device="webgpu")
    out["ms_tolist_1m"] = _timed(big.tolist, 3)["ms"]
    driver = rt_mod.runtime().driver
    if hasattr(driver, "wait_route"):  # the browser driver: the floors under the figures above, no GPU
        import js
        from pyodide.ffi import run_sync
        out["readback_route"] = driver.wait_route
        t0 = now()
        for _ in range(reps):  # Python suspending on a settled promise the way .item() does
            driver._js.parkSettled()
            driver._wait()
        out["us_resolved_promise_direct"] = (now() - t0) / reps * 1e6
        t0 = now()
        for _ in range(reps):
            run_sync(js.Promise.resolve(0))
        out["us_resolved_promise"] = (now() - t0) / reps * 1e6
        t0 = now()
        for _ in range(reps):
            await js.Promise.resolve(0)
        out["us_resolved_promise_async"] = (now() - t0) / reps * 1e6
    return out


def models(cfg):
    """A Transformer encoder layer forward, and training steps (forward, backward, Adam) of an MLP
    and a CNN on MNIST-sized inputs: milliseconds per call, GPU work included."""
    b, t, d, heads = cfg["encoder"]
    layer = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=4 * d, dropout=0.0,
                                             batch_first=True).to("webgpu")
    x = torch.full((b, t, d), 0.1, device="webgpu")
    reps = cfg.get("model_reps", 5)
    compiled = torch.compile(layer)
    with torch.no_grad():
        out = [{"name": f"encoder layer forward {b}x{t}x{d}", **_timed(lambda: layer(x), reps)},
               {"name": f"encoder layer forward {b}x{t}x{d}, compiled (replay)",
                **_timed(lambda: compiled(x), reps)}]
        if torch.webgpu.has_float16():
            out += _encoder_float16(layer, x, reps, f"encoder layer forward {b}x{t}x{d}")
    n = cfg["train_batch"]
    nets = {
        "MLP 784-256-10": (torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)),
                           (n, 784)),
        "CNN conv8-pool-linear": (torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(),
                                                      torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                                      torch.nn.Linear(8 * 14 * 14, 10)), (n, 1, 28, 28)),
    }
    for name, (net, shape) in nets.items():
        net = net.to("webgpu")
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        xb = torch.full(shape, 0.5, device="webgpu")
        yb = torch.zeros(n, dtype=torch.int64, device="webgpu")

        def step():
            loss = torch.nn.functional.cross_entropy(net(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        out.append({"name": f"{name} training step, batch {n}", **_timed(step, reps)})
        compiled_step = torch.compile(step, fullgraph=True)  # recorded at its 2nd call, replayed after
        out.append({"name": f"{name} training step, batch {n}, compiled (replay)",
                    **_timed(compiled_step, reps, warmup=2)})
    n, c, h, w, co = cfg["conv"]
    x = torch.full((n, c, h, w), 0.5, device="webgpu")
    weight = torch.full((co, c, 3, 3), 0.01, device="webgpu")
    bias = torch.zeros(co, device="webgpu")
    t = _timed(lambda: torch.nn.functional.conv2d(x, weight, bias, padding=1), reps)
    out.append({"name": f"conv2d forward {n}x{c}x{h}x{w}, {co} out, 3x3 pad 1", **t,
                "gflops": 2.0 * n * co * h * w * c * 9 / t["ms"] / 1e6})
    return out


def _encoder_float16(layer, x, reps, name):
    """The encoder layer's forward in float16: the model and input .half() (eager, then compiled), and
    the float32 model under autocast(float16); with webtorch.profiler's top-15 table of the half forward."""
    from webtorch.profiler import profile
    with torch.autocast("webgpu", dtype=torch.float16):
        autocast = _timed(lambda: layer(x), reps)
    half, xh = layer.half(), x.half()
    compiled = torch.compile(half)
    out = [{"name": f"{name}, float16", **_timed(lambda: half(xh), reps)},
           {"name": f"{name}, float16, compiled (replay)", **_timed(lambda: compiled(xh), reps)},
           {"name": f"{name}, autocast float16", **autocast}]
    with profile() as prof:
        half(xh)
    out[0]["gpu_timing"] = prof.gpu_timing
    out[0]["profile"] = prof.key_averages().table(sort_by="self_gpu_time_total", row_limit=15)
    layer.float()
    return out


def compile_check(cfg):
    """Compiled replays against eager on this adapter, bit for bit, where a matmul's chain may run in its
    store (backend/fusion.py, for the kernels of fusion.EPILOGUE_KERNELS): the encoder layer (float32,
    float16) and linear + bias + gelu + residual at each float32 matmul precision (the tensor-core kernel
    at "high" and "medium" where the adapter has subgroup matrices) and in float16. Per case: equal,
    kernels eager and replayed, and the replay's matmul kernels that run an epilogue."""
    b, t, d, heads = cfg["encoder"]
    gen = torch.Generator().manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=4 * d, dropout=0.0,
                                             batch_first=True).to("webgpu").eval()
    x = torch.randn(b, t, d, generator=gen).to("webgpu")
    w, bias = torch.randn(4 * d, d, generator=gen).to("webgpu") * 0.05, torch.randn(4 * d, generator=gen).to("webgpu")
    residual = torch.randn(b, t, 4 * d, generator=gen).to("webgpu")

    def mlp(x, w, bias, residual):
        return torch.nn.functional.gelu(torch.nn.functional.linear(x, w, bias)) * 0.5 + residual
    cases = [("encoder layer float32", lambda x: layer(x), [x], "highest")]
    if torch.webgpu.has_float16():  # (the layer made float16 first)
        cases.append(("encoder layer float16", lambda x: layer(x), [x.half()], "float16"))
    for precision in ("highest", "high", "medium"):
        cases.append((f"linear+gelu+residual float32, {precision}", mlp, [x, w, bias, residual], precision))
    if torch.webgpu.has_float16():
        cases.append(("linear+gelu+residual float16", mlp, [a.half() for a in (x, w, bias, residual)], "highest"))
    out = []
    with torch.no_grad():
        for name, fn, args, precision in cases:
            if precision == "float16":
                layer.half()
            torch.set_float32_matmul_precision("highest" if precision == "float16" else precision)
            try:
                rt = rt_mod.runtime()
                k0 = rt.kernels_dispatched
                eager = fn(*args)
                k1 = rt.kernels_dispatched
                compiled = torch.compile(fn)
                compiled(*args)
                k2 = rt.kernels_dispatched
                replayed = compiled(*args)
                k3 = rt.kernels_dispatched
                steps = list(compiled.cache.values())[-1].program.steps
                out.append({"name": name, "equal": bool(torch.equal(eager, replayed)),
                            "max_abs_diff": (eager.float() - replayed.float()).abs().max().item(),
                            "kernels_eager": k1 - k0, "kernels_replay": k3 - k2,
                            "epilogues": sorted({s[1][0][1][0] for s in steps
                                                 if s[0] == "fused" and s[1][0][0] == "fused_matmul"}),
                            "stats": compiled.stats})
            except Exception as e:  # one failing case must not hide the others
                out.append({"name": name, "error": f"{type(e).__name__}: {e}"})
    torch.set_float32_matmul_precision("highest")
    layer.float()
    return out


def minilm(cfg):
    """all-MiniLM-L6-v2's forward (web/examples/minilm.py, written to /tmp by the runner; random
    weights: the timing does not depend on them) at each (batch, tokens) of cfg["minilm"]: ms per
    forward (GPU work included), and webtorch.profiler's ten ops and kernels with the most GPU time
    in one more forward; then the forward compiled (webtorch.compile: recorded once, replayed)."""
    import minilm as model_module
    from webtorch.profiler import profile
    model = model_module.MiniLM(device="webgpu").eval()
    out = []
    for batch, tokens in cfg["minilm"]:
        ids = torch.tensor([[(101 + 37 * (b * tokens + t)) % 30522 for t in range(tokens)] for b in range(batch)],
                           device="webgpu")
        mask = torch.ones(batch, tokens, dtype=torch.int64, device="webgpu")
        with torch.no_grad():
            t = _timed(lambda: model(ids, mask), cfg.get("minilm_reps", 1), rounds=cfg.get("minilm_rounds", 3))
            with profile(profile_memory=True) as prof:
                model(ids, mask)
            compiled = torch.compile(lambda ids, mask: model(ids, mask))
            t_compiled = _timed(lambda: compiled(ids, mask), cfg.get("minilm_reps", 1),
                                rounds=cfg.get("minilm_rounds", 3))
        out.append({"name": f"MiniLM-L6 forward {batch}x{tokens} tokens", **t,
                    "gpu_timing": prof.gpu_timing,
                    "profile": prof.key_averages().table(sort_by="self_gpu_time_total", row_limit=10)})
        out.append({"name": f"MiniLM-L6 forward {batch}x{tokens} tokens, compiled (replay)", **t_compiled})
    return out


def weights(cfg):
    """all-MiniLM-L6-v2 from fetched bytes (a JS ArrayBuffer, as fetch() gives: bench_inputs.weights, the
    real checkpoint in Chromium, a same-shaped stand-in on Node) to a load_state_dict-ed model on "webgpu":
    seconds (best of 3, GPU work included) and the host memory peak: the fetched buffer plus what Python
    allocates meanwhile (tracemalloc, a separate untimed run); GPU buffers (CPU memory on SwiftShader) not
    counted. The same for a torch.save file of the same weights."""
    import io
    import tracemalloc
    import bench_inputs
    import minilm
    buf = bench_inputs.weights
    if buf is None:
        return {"error": "no MiniLM checkpoint was handed to the benchmark"}

    def from_safetensors(data):
        return torch.safetensors.load(data, device="webgpu")

    def from_pt(data):
        return torch.load(io.BytesIO(data), map_location="webgpu")

    model = torch.nn.utils.skip_init(minilm.MiniLM, device="webgpu")
    model.load_state_dict(from_safetensors(buf), assign=True)
    pt = io.BytesIO()
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, pt)
    del model
    formats = [("model.safetensors", buf, from_safetensors), ("model.pt (torch.save)", pt.getvalue(), from_pt)]
    out = []
    for name, data, load in formats:
        def build():
            model = torch.nn.utils.skip_init(minilm.MiniLM, device="webgpu").eval()
            model.load_state_dict(load(data), assign=True)
            return model
        nbytes = data.byteLength if hasattr(data, "byteLength") else len(data)
        best = _best_seconds(build, 3)
        gc.collect()
        torch.webgpu.empty_cache()
        tracemalloc.start()
        model = build()
        sync()
        python_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        del model
        host = nbytes + python_peak  # the file (a JS buffer, or Python bytes made before tracing) + the load's
        out.append({"name": f"MiniLM {name} {nbytes / 1e6:.0f} MB, fetched bytes to a model on webgpu",
                    "ms": best * 1e3, "file_mb": nbytes / 1e6, "python_peak_mb": python_peak / 1e6,
                    "host_peak_ratio": host / nbytes})
    return out


def _best_seconds(make, repeats):
    """The fastest of `repeats` runs of make() (a model building), from a collected heap and an emptied
    GPU cache to its work done on the GPU."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        torch.webgpu.empty_cache()
        t0 = now()
        model = make()
        sync()
        best = min(best, now() - t0)
        del model
    return best


def build(cfg):
    """Model building as PyTorch scripts do it: `Net()` on "cpu" (random initialisers, zeros, ones),
    then `.to("webgpu")`, beside building with device="webgpu": seconds to the parameters on the GPU
    (synchronised), for each cfg["build"] shape: an encoder block (d_model, heads, ffn) and a
    GPT-2-small-shaped stack (12 of them + a 50257 x 768 token embedding), best of 2. Without numpy the
    cpu fills are recorded and made on the GPU at .to() (webtorch/_deferred.py)."""
    out = []
    for name, (layers, d, heads, ffn, vocab) in cfg["build"].items():
        def net(device=None):
            blocks = [torch.nn.TransformerEncoderLayer(d, heads, ffn, device=device) for _ in range(layers)]
            if vocab:
                blocks.append(torch.nn.Embedding(vocab, d, device=device))
            return torch.nn.Sequential(*blocks)
        row = {"name": name}
        for key, make in (("ms_cpu_then_to", lambda: net().to("webgpu")), ("ms_on_webgpu", lambda: net("webgpu"))):
            row[key] = _best_seconds(make, 2) * 1e3
        row["params"] = sum(p.numel() for p in net("meta").parameters())
        out.append(row)
    return out


async def demos(cfg):
    """The demo pages' work, run by the pages' own Python: web/examples/train_gpt.py (the GPT page:
    training steps/s and tokens/s at its model size for this adapter, then sampling through the KV
    cache, characters/s) and the search page's corpus embedding (web/examples/minilm.py's encode, batches
    of 16 as web/examples/semantic_search.py does; random weights: the timing does not depend on them)."""
    import minilm
    out = []
    events = []
    page = {"SIZE": cfg["gpt_size"], "TEXT_PATH": "/tmp/macbeth.txt", "__name__": "train_gpt"}
    with open("/tmp/train_gpt.py") as f:
        await eval(compile(f.read(), "train_gpt.py", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT), page)
    page["emit"] = lambda kind, data: events.append((kind, data))
    steps = cfg["gpt_steps"]
    page["train"](2, report_every=2)  # warm-up: pipelines compiled, buffers cached
    events.clear()
    page["train"](steps, report_every=steps, sample_every=10 ** 9)
    rate = json.loads(next(data for kind, data in events if kind == "loss"))  # at the last step, after its readback
    name = f"GPT page, {cfg['gpt_size']} model ({page['n_params'] / 1e3:.0f}k parameters)"
    out.append({"name": f"{name}: training", "steps_per_s": rate["steps_per_s"], "tokens_per_s": rate["tokens_per_s"]})
    t0 = now()
    text = page["sample_text"](cfg["sample_chars"])
    out.append({"name": f"{name}: sampling with the KV cache", "chars_per_s": (len(text) - 1) / (now() - t0)})
    model = torch.nn.utils.skip_init(minilm.MiniLM, device="webgpu").eval()
    tokenizer = minilm.WordPiece(open("/tmp/vocab.txt").read())
    corpus = open("/tmp/corpus.txt").read().splitlines()[::cfg["search_subset"]]
    minilm.encode(model, tokenizer, corpus[:16]).sum().item()  # warm-up
    t0 = now()
    embeddings = torch.cat([minilm.encode(model, tokenizer, corpus[i:i + 16]) for i in range(0, len(corpus), 16)])
    embeddings.sum().item()
    seconds = now() - t0
    out.append({"name": f"search page: embed {len(corpus)} corpus sentences", "ms": seconds * 1e3,
                "sentences_per_s": len(corpus) / seconds})
    t0 = now()
    (embeddings @ minilm.encode(model, tokenizer, ["how do I read a file line by line"])[0]).tolist()
    out.append({"name": "search page: one query", "ms": (now() - t0) * 1e3})
    return out


async def run(cfg):
    _cfg.update(cfg)
    torch.webgpu.synchronize()  # initialise the device first
    res = {"adapter": torch.webgpu.adapter_info(), "features": list(rt_mod.runtime().driver.features),
           "limits": dict(rt_mod.runtime().limits)}
    for name in cfg["sections"]:
        if name in ("matmul", "chain", "bandwidth", "transfer", "item", "models", "minilm", "weights", "demos",
                    "compile_check", "build", "complex", "reductions", "matmul_f16", "float16_speed", "decode"):
            t0 = now()
            try:
                res[name] = globals()[name](cfg)
                if inspect.iscoroutine(res[name]):
                    res[name] = await res[name]
            except Exception as e:  # a failing section must not hide the others
                res[name] = {"error": f"{type(e).__name__}: {e}"}
            res.setdefault("section_s", {})[name] = now() - t0
            gc.collect()
            torch.webgpu.empty_cache()
    res["stats"] = torch.webgpu.stats()
    return res

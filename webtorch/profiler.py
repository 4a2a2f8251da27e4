"""webtorch.profiler: where time and memory go, shaped like torch.profiler.

    from webtorch.profiler import profile, record_function, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.WEBGPU], profile_memory=True) as prof:
        with record_function("forward"):
            model(x)
    print(prof.key_averages().table(sort_by="self_gpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")   # Perfetto / chrome://tracing

What it records, and how:
- Ops: while a profile is active, webtorch's public functions (the `webtorch` namespace, `nn.functional`,
  `linalg`, Tensor methods and operators, autograd's backward rules) are replaced, in every webtorch
  module that holds them, by wrappers that time each call on the host (Python time; a nested op's
  time counts in its caller's total, not in the caller's self time) and the GPU memory it leaves
  allocated. They are put back when the profile ends: no cost at all outside a profile.
- Kernels: the runtime's `run` (where every kernel is recorded) is swapped for one that notes each
  kernel with the innermost open op, which its GPU time is attributed to.
- GPU time: with the adapter's "timestamp-query" feature, each kernel of a profiled batch runs in a
  compute pass of its own that writes begin/end timestamps, read back when the profile ends
  (kernel-level; browsers may coarsen timestamps, Chrome to 100 us unless its WebGPU developer
  features are on). Without it, each kernel is submitted and waited for alone, and its time is the
  wait less that of an empty wait measured at the start; the waits are left out of host times.
  The table's footer says which.
"""
import enum
import functools
import json
import sys
import time
import types

from .errors import WebGPUError

__all__ = ["ProfilerActivity", "ProfilerAction", "profile", "record_function", "EventList", "FunctionEventAvg", "schedule",
           "tensorboard_trace_handler"]

_now_us = lambda: time.perf_counter() * 1e6  # noqa: E731

_active = None  # the running profile
_ABSENT = object()


class ProfilerActivity(enum.Enum):
    CPU = "cpu"
    WEBGPU = "webgpu"
    CUDA = "webgpu"  # torch code asking for the GPU's activity gets WebGPU's


class _Event:
    """One call of an op or a record_function block (kind "op"/"user"), or one kernel ("kernel")."""
    __slots__ = ("name", "kind", "start", "end", "parent", "children_us", "sync_us", "mem_start", "mem",
                 "child_mem", "gpu_us", "gpu_total_us", "detail")

    def __init__(self, name, kind, start, parent):
        self.name, self.kind, self.start, self.end, self.parent = name, kind, start, start, parent
        self.children_us = 0.0  # host time of the ops called inside this one
        self.sync_us = 0.0  # time the profiler itself waited on the GPU inside this one (left out)
        self.mem_start, self.mem, self.child_mem = 0, 0, 0
        self.gpu_us = 0.0  # kernels: their GPU time; ops: that of the kernels they recorded themselves
        self.gpu_total_us = 0.0  # with the kernels of the ops they called
        self.detail = None  # kernels: the pipeline key

    @property
    def cpu_total_us(self):
        return self.end - self.start - self.sync_us


# -- what gets wrapped -----------------------------------------------------------------------
_OP_MODULES = ("webtorch._ops", "webtorch._indexing", "webtorch._shape_ops", "webtorch._math_ops",
               "webtorch._inplace", "webtorch._random", "webtorch._conv_ops", "webtorch.nn.functional",
               "webtorch.linalg", "webtorch.autograd")
# Tensor attributes that read metadata only (no kernel, no readback): not ops.
_NOT_OPS = {"dim", "size", "stride", "storage_offset", "numel", "element_size", "is_contiguous",
            "is_floating_point", "requires_grad_", "type", "__len__", "__hash__", "__repr__", "__init__",
            "__iter__", "__array__", "__index__", "__format__", "__reduce_ex__", "__deepcopy__", "__setstate__",
            "__getstate__", "__copy__"}
_NOT_OPS_FUNCTIONS = {"elementwise", "broadcast_shapes", "is_grad_enabled", "no_grad", "enable_grad", "set_grad_enabled",
                      "inference_mode", "record", "check_inplace", "refresh_view", "alias"}


def _op_name(attr):
    """A Tensor attribute's op name: __add__ and __radd__ -> add, __iadd__ -> add_, __getitem__ -> getitem."""
    if not (attr.startswith("__") and attr.endswith("__")):
        return attr
    core = attr[2:-2]
    if core.startswith("r") and hasattr(_tensor_class(), f"__{core[1:]}__") and core not in ("round",):
        return core[1:]
    if core.startswith("i") and hasattr(_tensor_class(), f"__{core[1:]}__"):
        return core[1:] + "_"
    return core


def _tensor_class():
    from ._tensor import Tensor
    return Tensor


def _targets():
    """{id(function): (function, op name)} for the public ops of webtorch's op modules and Tensor."""
    from . import _conv_ops, _indexing, _inplace, _math_ops, _ops, _random, _shape_ops, autograd, linalg  # noqa: F401
    from .nn import functional  # noqa: F401  (every op module loaded)
    found = {}
    # webtorch's own namespace too: the ops it wraps with their argument checks (webtorch._tensor_args)
    for mod_name in _OP_MODULES + ("webtorch",):
        module = sys.modules[mod_name]
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            fn = getattr(module, name, None)
            if isinstance(fn, types.FunctionType) and fn.__module__ in _OP_MODULES and name not in _NOT_OPS_FUNCTIONS:
                found.setdefault(id(fn), (fn, name))
    for attr, fn in vars(_tensor_class()).items():
        if isinstance(fn, types.FunctionType) and attr not in _NOT_OPS and (
                not attr.startswith("_") or attr.startswith("__") and attr.endswith("__")):
            found.setdefault(id(fn), (fn, _op_name(attr)))
    return found


def _wrapper(fn, name):
    @functools.wraps(fn)
    def op(*args, **kwargs):
        prof = _active
        if prof is None:  # a reference taken while profiling, called after
            return fn(*args, **kwargs)
        event = prof._begin(name, "op")
        try:
            return fn(*args, **kwargs)
        finally:
            prof._end(event)
    return op


def _kernel_name(key):
    """A kernel's row name from its pipeline key: the template, and the op or dtype it was made for."""
    return key[0] + (f" {key[1]}" if len(key) > 1 and isinstance(key[1], str) else "")


# -- the profile -----------------------------------------------------------------------------
class profile:
    """A context manager (or start()/stop()) recording webtorch ops, kernels and GPU memory."""

    def __init__(self, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, schedule=None, on_trace_ready=None, **kwargs):
        """record_shapes, with_stack, with_flops and with_modules are accepted and not recorded."""
        if schedule is not None:
            raise NotImplementedError("webtorch.profiler: schedule= is not supported; profile the steps you "
                                      "want inside one `with profile()` block")
        self.activities = set(activities) if activities is not None else {ProfilerActivity.CPU,
                                                                          ProfilerActivity.WEBGPU}
        self.profile_memory = profile_memory
        self.on_trace_ready = on_trace_ready
        self.gpu_timing = None  # "timestamp-query" or "synchronized", once GPU activity is recorded
        self._events = []
        self._stack = []
        self._patches = []
        self._runtime = None
        self._sync_total = 0.0
        self._empty_sync_us = 0.0
        self._submits = []  # timestamp mode: (host time, kernels) per submitted batch

    def __enter__(self):
        self.start()
        return self

    def step(self):
        """torch's step() advances a schedule; without one there is nothing to do."""

    def __exit__(self, *exc):
        self.stop()
        return False

    # -- start / stop -------------------------------------------------------------------------
    def start(self):
        global _active
        if _active is not None:
            raise RuntimeError("webtorch.profiler: another profile is already running")
        self._install_ops()
        if ProfilerActivity.WEBGPU in self.activities:
            self._install_runtime()
        self._t0 = _now_us()
        _active = self

    def stop(self):
        global _active
        if _active is not self:
            return
        _active = None
        try:
            if self._runtime is not None:
                self._finish_gpu()
        finally:
            for owner, attr, original in reversed(self._patches):
                if isinstance(owner, dict):
                    owner[attr] = original
                elif original is _ABSENT:
                    delattr(owner, attr)
                else:
                    setattr(owner, attr, original)
            self._patches.clear()
            if self._runtime is not None:
                self._runtime.hooks -= 1
        for event in self._events:
            if event.kind != "kernel":
                event.gpu_total_us += event.gpu_us
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _patch(self, owner, attr, value):
        """owner[attr] (a dict) or owner.attr = value until stop(); an instance attribute that
        shadows its class's is deleted again."""
        if isinstance(owner, dict):
            self._patches.append((owner, attr, owner[attr]))
            owner[attr] = value
        else:
            self._patches.append((owner, attr, vars(owner).get(attr, _ABSENT)))
            setattr(owner, attr, value)

    def _install_ops(self):
        targets = _targets()
        wrappers = {key: _wrapper(fn, name) for key, (fn, name) in targets.items()}
        for mod_name, module in list(sys.modules.items()):
            if module is None or not (mod_name == "webtorch" or mod_name.startswith("webtorch.")):
                continue
            for attr, value in list(vars(module).items()):
                if id(value) in wrappers and targets[id(value)][0] is value:
                    self._patch(module, attr, wrappers[id(value)])
        tensor = _tensor_class()
        for attr, value in list(vars(tensor).items()):
            if id(value) in wrappers and targets[id(value)][0] is value:
                self._patch(tensor, attr, wrappers[id(value)])
        from . import autograd
        for name, rule in list(autograd.BACKWARD.items()):
            self._patch(autograd.BACKWARD, name, _wrapper(rule, name + "_backward"))

    def _install_runtime(self):
        from .backend import webgpu as rt_module
        try:
            rt = rt_module.runtime()
        except WebGPUError:
            return  # no GPU here: host times only
        rt.flush()
        self._runtime = rt
        rt.hooks += 1  # eager elementwise ops record through run (patched below) until stop()
        real_run = rt.run
        timed = "timestamp-query" in rt.features and hasattr(rt.driver, "submit_timed")
        self.gpu_timing = "timestamp-query" if timed else "synchronized"

        def run(kernel, buffers, meta, groups):
            before = rt.kernels_dispatched
            real_run(kernel, buffers, meta, groups)
            if rt.kernels_dispatched == before:
                return  # no workgroups: nothing recorded
            owner = self._stack[-1] if self._stack else None
            event = _Event(_kernel_name(kernel[0]), "kernel", _now_us(), owner)
            event.detail = kernel[0]
            self._events.append(event)
            if not timed:
                self._sync_kernel(rt, event)

        if timed:
            submit_timed = rt.driver.submit_timed

            def submit(*batch):
                self._submits.append((_now_us(), rt._pending))
                submit_timed(*batch)
            self._patch(rt, "_submit", submit)
        else:
            waits = []
            for _ in range(3):  # the cost of an empty wait, taken off each kernel's
                t = _now_us()
                rt.synchronize()
                waits.append(_now_us() - t)
            self._empty_sync_us = min(waits)
        self._patch(rt, "run", run)

    def _sync_kernel(self, rt, event):
        t = _now_us()
        rt.synchronize()
        waited = _now_us() - t
        event.end = event.start + waited
        event.gpu_us = max(0.0, waited - self._empty_sync_us)
        self._add_gpu(event)
        self._sync_total += waited
        for open_event in self._stack:
            open_event.sync_us += waited

    def _add_gpu(self, kernel):
        """A kernel's GPU time onto its op, and into the totals of the ops around it."""
        owner = kernel.parent
        if owner is not None:
            owner.gpu_us += kernel.gpu_us
            owner = owner.parent
        while owner is not None:
            owner.gpu_total_us += kernel.gpu_us
            owner = owner.parent

    def _finish_gpu(self):
        rt = self._runtime
        rt.flush()
        if self.gpu_timing != "timestamp-query":
            return
        stamps = rt.driver.read_timings()  # begin, end (ns) per kernel, in submit order
        kernels = iter([e for e in self._events if e.kind == "kernel"])
        k = 0
        for submitted, count in self._submits:
            # a batch's kernels go on the host clock from its submit time, spaced as the GPU ran them
            origin = stamps[2 * k]
            for _ in range(count):
                kernel = next(kernels, None)
                if kernel is None or 2 * k + 1 >= len(stamps):  # recorded past the profiler's run: unmatched
                    return
                begin, end = stamps[2 * k], stamps[2 * k + 1]
                kernel.gpu_us = max(0.0, (end - begin) / 1000)
                self._add_gpu(kernel)
                kernel.start = max(kernel.start, submitted + (begin - origin) / 1000)
                kernel.end = kernel.start + kernel.gpu_us
                k += 1

    # -- events ---------------------------------------------------------------------------------
    def _begin(self, name, kind):
        event = _Event(name, kind, _now_us(), self._stack[-1] if self._stack else None)
        rt = self._runtime
        if rt is not None:
            event.mem_start = rt.allocated_bytes
        self._stack.append(event)
        self._events.append(event)
        return event

    def _end(self, event):
        event.end = _now_us()
        self._stack.pop()
        rt = self._runtime
        if rt is not None:
            event.mem = rt.allocated_bytes - event.mem_start
        parent = event.parent
        if parent is not None:
            parent.children_us += event.cpu_total_us
            parent.child_mem += event.mem

    def events(self):
        """Every recorded call and kernel, in the order they began."""
        return list(self._events)

    def key_averages(self, group_by_input_shape=False):
        groups = {}
        for event in self._events:
            key = (event.kind == "kernel", event.name)
            if key not in groups:
                groups[key] = FunctionEventAvg(event.name, event.kind == "kernel")
            groups[key].add(event)
        return EventList(list(groups.values()), self)

    def export_chrome_trace(self, path):
        """Writes the events as Chrome trace JSON (Perfetto, chrome://tracing): ops on the host
        track, kernels on the GPU track, times in microseconds from the profile's start."""
        with open(path, "w") as f:
            json.dump(self.chrome_trace(), f)

    def chrome_trace(self):
        trace = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "webtorch host (Python)"}},
                 {"name": "process_name", "ph": "M", "pid": 1,
                  "args": {"name": f"webtorch GPU ({self.gpu_timing or 'not recorded'})"}}]
        for event in self._events:
            gpu = event.kind == "kernel"
            item = {"name": event.name, "cat": event.kind, "ph": "X", "pid": 1 if gpu else 0, "tid": 0,
                    "ts": round(event.start - self._t0, 3), "dur": round(event.end - event.start, 3)}
            args = {"op": event.parent.name} if gpu and event.parent is not None else {}
            if gpu:
                args["gpu_us"] = round(event.gpu_us, 3)
                args["pipeline"] = repr(event.detail)
            elif self._runtime is not None:
                args["gpu_memory_bytes"] = event.mem
            item["args"] = args
            trace.append(item)
        return {"traceEvents": trace, "displayTimeUnit": "ms"}


class record_function:
    """A named range in the profile (a context manager or decorator); nothing when none is running."""

    def __init__(self, name, args=None):
        self.name = name
        self._event = None

    def __enter__(self):
        if _active is not None:
            self._event = _active._begin(self.name, "user")
        return self

    def __exit__(self, *exc):
        if self._event is not None and _active is not None:
            _active._end(self._event)
        self._event = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return wrapped


# -- tables ---------------------------------------------------------------------------------
class FunctionEventAvg:
    """The calls of one op (or kernel) summed: times in microseconds, memory in bytes."""

    def __init__(self, key, is_kernel):
        self.key, self.is_kernel = key, is_kernel
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.gpu_time_total = self.self_gpu_time_total = 0.0
        self.gpu_memory_usage = self.self_gpu_memory_usage = 0

    def add(self, event):
        self.count += 1
        if self.is_kernel:
            self.gpu_time_total += event.gpu_us
            self.self_gpu_time_total += event.gpu_us
            return
        self.cpu_time_total += event.cpu_total_us
        self.self_cpu_time_total += event.cpu_total_us - event.children_us
        self.gpu_time_total += event.gpu_total_us
        self.self_gpu_time_total += event.gpu_us
        self.gpu_memory_usage += event.mem
        self.self_gpu_memory_usage += event.mem - event.child_mem

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def gpu_time(self):
        return self.gpu_time_total / self.count if self.count else 0.0

    # torch's names for the GPU columns
    device_time_total = cuda_time_total = property(lambda self: self.gpu_time_total)
    self_device_time_total = self_cuda_time_total = property(lambda self: self.self_gpu_time_total)
    device_time = cuda_time = property(lambda self: self.gpu_time)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} self_gpu_time={_format_time(self.self_gpu_time_total)} "
                f"count={self.count}>")


_SORT_KEYS = {"cpu_time_total": "cpu_time_total", "self_cpu_time_total": "self_cpu_time_total",
              "cpu_time": "cpu_time", "count": "count",
              "gpu_time_total": "gpu_time_total", "self_gpu_time_total": "self_gpu_time_total", "gpu_time": "gpu_time",
              "gpu_memory_usage": "gpu_memory_usage", "self_gpu_memory_usage": "self_gpu_memory_usage"}
for _torch_name in ("cuda", "device"):
    _SORT_KEYS.update({f"{_torch_name}_time_total": "gpu_time_total", f"self_{_torch_name}_time_total":
                       "self_gpu_time_total", f"{_torch_name}_time": "gpu_time",
                       f"{_torch_name}_memory_usage": "gpu_memory_usage",
                       f"self_{_torch_name}_memory_usage": "self_gpu_memory_usage"})


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_memory(nbytes):
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} b"


class EventList(list):
    def __init__(self, items, prof):
        super().__init__(items)
        self._prof = prof

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, top_level_events_only=False):
        """The rows as text, like torch's: self and total host time, self and total GPU time, GPU
        memory (with profile_memory=True) and calls, sorted by sort_by (descending)."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"webtorch.profiler: unknown sort_by {sort_by!r}; one of {sorted(_SORT_KEYS)}")
            rows.sort(key=lambda r: getattr(r, _SORT_KEYS[sort_by]), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        prof = self._prof
        all_rows = [r for r in self if isinstance(r, FunctionEventAvg)]
        cpu_total = sum(r.self_cpu_time_total for r in all_rows)
        gpu_total = sum(r.self_gpu_time_total for r in all_rows if r.is_kernel)
        gpu = prof.gpu_timing is not None
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        if gpu:
            headers += ["Self GPU", "Self GPU %", "GPU total", "GPU time avg"]
        if prof.profile_memory and gpu:
            headers += ["GPU Mem", "Self GPU Mem"]
        headers.append("# of Calls")
        pct = lambda part, whole: f"{100 * part / whole:.2f}%" if whole else "0.00%"  # noqa: E731
        lines = []
        for r in rows:
            name = r.key if len(r.key) <= max_name_column_width else r.key[:max_name_column_width - 3] + "..."
            cells = [name, pct(r.self_cpu_time_total, cpu_total), _format_time(r.self_cpu_time_total),
                     pct(r.cpu_time_total, cpu_total), _format_time(r.cpu_time_total), _format_time(r.cpu_time)]
            if gpu:
                cells += [_format_time(r.self_gpu_time_total), pct(r.self_gpu_time_total, gpu_total),
                          _format_time(r.gpu_time_total), _format_time(r.gpu_time)]
            if prof.profile_memory and gpu:
                cells += [_format_memory(r.gpu_memory_usage), _format_memory(r.self_gpu_memory_usage)]
            cells.append(str(r.count))
            lines.append(cells)
        widths = [max([len(h)] + [len(c[i]) for c in lines]) for i, h in enumerate(headers)]
        rule = "  ".join("-" * w for w in widths)
        fmt = lambda cells: "  ".join(c.rjust(w) if i else c.ljust(w)  # noqa: E731
                                      for i, (c, w) in enumerate(zip(cells, widths)))
        out = [rule, fmt(headers), rule] + [fmt(c) for c in lines] + [rule]
        out.append(f"Self CPU time total: {_format_time(cpu_total)}")
        if gpu:
            how = ("kernel timestamps (timestamp-query)" if prof.gpu_timing == "timestamp-query" else
                   "each kernel submitted and waited for alone (the adapter has no timestamp-query)")
            out.append(f"Self GPU time total: {_format_time(gpu_total)}, measured by {how}")
        return "\n".join(out) + "\n"


# -- schedules and trace handlers (torch.profiler's helpers) ---------------------------------------
class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """torch's step -> ProfilerAction function: skip_first steps, then cycles of wait, warmup and active
    steps (the last active one RECORD_AND_SAVE), repeat cycles (0: forever). profile(schedule=...) itself
    is refused: profile the steps you want inside one `with profile()` block."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
                             f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
                             f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        import warnings
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:  # the first cycle's wait is skipped: every step shifts by one wait
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An on_trace_ready handler writing the profile's Chrome trace to
    dir_name/<worker_name>.<time in ms>.pt.trace.json[.gz] (TensorBoard's profiler plugin reads them)."""
    import os
    import socket

    def handler_fn(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json" +
                            (".gz" if use_gzip else ""))
        if use_gzip:
            import gzip
            with gzip.open(path, "wt", encoding="utf-8") as f:
                json.dump(prof.chrome_trace(), f)
        else:
            prof.export_chrome_trace(path)
    return handler_fn


profiler = sys.modules[__name__]  # torch.profiler.profiler: the module holding profile
sys.modules.setdefault(__name__ + ".profiler", profiler)

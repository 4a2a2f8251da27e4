"""webtorch.compile: a function's or module's kernels recorded once per input signature, then replayed.

The first call with a given signature (each argument's device, dtype, shape, strides, offset and
storage sharing, or a plain value; grad mode; the training flags and plain attributes of the modules
it reaches; the identity and layout of their tensors) runs eagerly while the runtime records its
kernels (backend/recording.py). Later calls with that signature replay the kernels with the
arguments' buffers bound in place of the recorded ones: no op runs in Python, and the results are
new tensors over the replay's buffers.

A call that cannot be replayed runs eagerly, for that signature from then on: it reads a value back
(.item(), .tolist(), print, data-dependent control flow), draws random numbers, builds an autograd
graph (compile replays grad-free calls: no_grad, inference_mode, or nothing requiring grad), uses a
tensor it does not reach through its arguments, closure, globals or module, keeps a tensor it made
(module state), or returns something other than tensors and plain values. fullgraph=True makes that
an error instead.
"""
import functools
import types

from . import autograd
from ._tensor import Tensor
from .backend import recording
from .nn.module import Module

CACHE_SIZE_LIMIT = 8  # signatures recorded per function (torch._dynamo.config.cache_size_limit); then eager
MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
_PLAIN = (int, float, bool, str, bytes, type(None))


class GraphBreakError(RuntimeError):
    """fullgraph=True and the call cannot be replayed."""


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """torch.compile's signature. backend, options and dynamic are accepted and do not change what
    happens (each signature is recorded as is: dynamic shapes are recorded anew); mode must be one of
    torch's; backend="eager" and disable=True run eagerly."""
    if mode not in MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(m for m in MODES if m)}")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if disable:
        return model
    if not callable(model):
        raise RuntimeError("compile() expects a callable (a function or an nn.Module)")
    replaying = backend != "eager"
    if isinstance(model, Module):
        return OptimizedModule(model, CompiledFunction(model.__call__, fullgraph, replaying, module=model))
    compiled = CompiledFunction(model, fullgraph, replaying)
    functools.update_wrapper(compiled, model)
    return compiled


class _Entry:
    """One signature's recorded program and how to rebuild the call's result from its buffers."""
    __slots__ = ("program", "outputs", "rebuild")


class CompiledFunction:
    def __init__(self, fn, fullgraph, replaying, module=None):
        self.fn, self.fullgraph, self.replaying, self.module = fn, fullgraph, replaying, module
        self.cache = {}  # signature -> _Entry, or the reason it runs eagerly
        self.stats = {"captures": 0, "replays": 0, "eager": 0}

    @property
    def graph_breaks(self):
        return [v for v in self.cache.values() if isinstance(v, str)]

    def __get__(self, obj, objtype=None):  # a compiled method binds like the function it wraps
        return self if obj is None else types.MethodType(self, obj)

    def __call__(self, *args, **kwargs):
        if not self.replaying:
            self.stats["eager"] += 1
            return self.fn(*args, **kwargs)
        inputs = []
        state = _reachable_tensors(self.module if self.module is not None else self.fn)
        key = (_signature(args, inputs), _signature(tuple(kwargs.items()), inputs), autograd.is_grad_enabled(),
               _state_signature(self.module if self.module is not None else self.fn, state))
        entry = self.cache.get(key)
        if entry.__class__ is _Entry:
            self.stats["replays"] += 1
            return _replay(entry, inputs)
        if entry is not None:
            self.stats["eager"] += 1
            return self.fn(*args, **kwargs)
        if len(self.cache) >= CACHE_SIZE_LIMIT:
            return self._eager(key, f"{CACHE_SIZE_LIMIT} signatures are recorded already (cache_size_limit)",
                               args, kwargs)
        if any(t.device.type != "webgpu" for t in inputs):
            return self._eager(key, "an argument is a cpu tensor (only webgpu kernels are recorded)", args, kwargs)
        if autograd.is_grad_enabled() and any(t.requires_grad for t in inputs + state):
            return self._eager(key, "a tensor it uses requires grad, so it builds an autograd graph (compile replays "
                                    "calls under no_grad / inference_mode)", args, kwargs)
        return self._capture(key, args, kwargs, inputs, state)

    def _eager(self, key, reason, args, kwargs):
        self._break(key, reason)
        self.stats["eager"] += 1
        return self.fn(*args, **kwargs)

    def _break(self, key, reason):
        self.cache[key] = reason
        if self.fullgraph:
            raise GraphBreakError(f"webtorch.compile(fullgraph=True): the call cannot be replayed: {reason}")

    def _capture(self, key, args, kwargs, inputs, state):
        from .backend.webgpu import runtime
        rt = runtime()
        rt.flush()
        self.stats["captures"] += 1
        with recording.Recorder(rt) as recorder:
            result = self.fn(*args, **kwargs)
        try:
            if recorder.broken:
                raise recording.GraphBreak(recorder.broken)
            entry = _Entry()
            externals = {t._storage.buffer.id: t._storage for t in state if t._storage.device_type == "webgpu"}
            entry.program = recording.Program(recorder, [t._storage.buffer for t in inputs], externals)
            leaves, entry.rebuild = _flatten(result)
            entry.outputs = [_output_slot(entry.program, x, inputs) for x in leaves]
            kept = entry.program.live_new - {o[1][1] for o in entry.outputs if o[0] == "tensor" and o[1][0] == "new"}
            if kept:
                raise recording.GraphBreak("it keeps a tensor it made (module state, a global or a closure), "
                                           "which a replay would not update")
        except recording.GraphBreak as e:
            self._break(key, str(e))
            return result
        self.cache[key] = entry
        return result


def _output_slot(program, x, inputs):
    if not isinstance(x, Tensor):
        if not isinstance(x, _PLAIN):
            raise recording.GraphBreak(f"it returns a {type(x).__name__}, not tensors and plain values")
        return ("value", x)
    if x.requires_grad or x.grad_fn is not None:
        raise recording.GraphBreak("its result requires grad (compile replays calls under no_grad / inference_mode)")
    storage = x._storage
    if storage.device_type != "webgpu":
        raise recording.GraphBreak("it returns a cpu tensor (cpu work is not recorded)")
    slot = program.slot_of.get(storage.buffer.id)
    if slot is None:
        for i, t in enumerate(inputs):
            if t._storage is storage:
                slot = ("input", i)
                break
        else:
            slot = ("external", storage)
    return ("tensor", slot, storage.dtype, storage.numel, tuple(x.shape), x._stride, x._offset)


def _replay(entry, inputs):
    from .backend import gpu
    from .backend.webgpu import runtime
    rt = runtime()
    new = entry.program.replay(rt, [t._storage.buffer for t in inputs])
    storages = {}
    leaves = []
    for out in entry.outputs:
        if out[0] == "value":
            leaves.append(out[1])
            continue
        _, (kind, ref), dtype, numel, shape, stride, offset = out
        if kind == "input":
            storage = inputs[ref]._storage
        elif kind == "external":
            storage = ref
        else:
            storage = storages.get(ref)
            if storage is None:
                storage = storages[ref] = gpu.Storage.adopt(dtype, numel, new[ref], rt)
        leaves.append(Tensor(storage, shape, stride, offset))
    return entry.rebuild(leaves)


# -- signatures and guards ------------------------------------------------------------------------
def _signature(values, inputs):
    """A hashable description of arguments; their tensors are appended to inputs."""
    out = []
    for v in values:
        if isinstance(v, Tensor):
            shared = next((i for i, t in enumerate(inputs) if t._storage is v._storage), None)
            inputs.append(v)
            out.append(("T", v.device.type, v.dtype, tuple(v.shape), v._stride, v._offset, v.requires_grad, shared))
        elif isinstance(v, (tuple, list)):
            out.append((type(v), _signature(v, inputs)))
        elif isinstance(v, dict):
            out.append((dict, _signature(tuple(v.items()), inputs)))
        elif isinstance(v, _PLAIN) or v.__class__.__name__ == "dtype":
            out.append(v)
        else:
            out.append(("id", id(v)))  # any other object: the same object
    return tuple(out)


def _roots(obj):
    """What a compiled callable reaches: a module, or a function's closure and the globals it names."""
    if isinstance(obj, Module):
        return [obj]
    if isinstance(obj, types.MethodType):
        return [obj.__self__] + _roots(obj.__func__)
    code = getattr(obj, "__code__", None)
    if code is None:
        return [obj]
    roots = [cell.cell_contents for cell in (obj.__closure__ or ()) if _filled(cell)]
    names = obj.__globals__
    roots += [names[n] for n in code.co_names if n in names]
    return roots


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _reachable_tensors(obj):
    out = []
    for root in _roots(obj):
        if isinstance(root, Tensor):
            out.append(root)
        elif isinstance(root, Module):
            for m in root.modules():
                out += [t for t in list(m._parameters.values()) + list(m._buffers.values()) if t is not None]
                out += [v for v in vars(m).values() if isinstance(v, Tensor)]
    return out


def _state_signature(obj, state):
    """Guards on what the call reaches: its tensors' identity and layout, the modules' training flags
    and plain attributes, and plain closure values and globals."""
    plain = []
    for root in _roots(obj):
        if isinstance(root, Module):
            for m in root.modules():
                plain.append(m.training)
                plain += [(k, v) for k, v in vars(m).items() if isinstance(v, _PLAIN)]
        elif isinstance(root, _PLAIN):
            plain.append(root)
    tensors = tuple((id(t), id(t._storage), tuple(t.shape), t._stride, t._offset, t.dtype, t.requires_grad)
                    for t in state)
    return tuple(plain), tensors


def _flatten(result):
    """result's leaves, and a function building the same structure from new leaves."""
    if isinstance(result, (tuple, list)):
        parts = [_flatten(x) for x in result]
        counts = [len(p[0]) for p in parts]

        def rebuild(leaves, kind=type(result)):
            out, i = [], 0
            for (_, sub), n in zip(parts, counts):
                out.append(sub(leaves[i:i + n]))
                i += n
            return kind(out) if kind in (tuple, list) else kind(*out)
        return [leaf for p in parts for leaf in p[0]], rebuild
    if isinstance(result, dict):
        keys = list(result)
        leaves, sub = _flatten([result[k] for k in keys])
        return leaves, lambda new, kind=type(result): kind(zip(keys, sub(new)))
    return [result], lambda leaves: leaves[0]


class OptimizedModule(Module):
    """What compile(module) returns, like torch's: calls run the compiled module; attributes and
    state_dict() (under "_orig_mod.") are the original module's."""

    def __init__(self, mod, compiled_call):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled_call", compiled_call)

    def __call__(self, *args, **kwargs):
        return self._compiled_call(*args, **kwargs)

    forward = __call__

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)

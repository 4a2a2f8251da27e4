"""webtorch.compile: a function's or module's kernels recorded once per input signature, then replayed.

The first call with a given signature runs eagerly while the runtime records its kernels
(backend/recording.py). Later calls with that signature replay the kernels with the arguments'
buffers, and the buffers of the state tensors the call reaches, bound in place of the recorded ones:
no op runs in Python. The results are new tensors over the replay's buffers, and state the call
replaced (a new .grad, BatchNorm's running statistics) is replaced the same way.

State is what the call reaches through its module, closure and the globals it names: modules'
parameters, buffers and tensor attributes, the parameters' gradients, optimizers' parameters and
state, and tensors. A training step (forward, loss.backward(), optimizer.step(), zero_grad())
replays whole: autograd's kernels are recorded like the others, and the optimizer's fused update
computes its scalars (step count, learning rate) anew at each replay.

The signature: each argument's device, dtype, shape, strides, offset and storage sharing (a plain
value by value); grad mode; the training flags and plain attributes of the modules it reaches, the
optimizers' options (numbers by whether they are zero: the values are read at each replay); and for
each state location, the layout of the tensor there (or None) and its sharing. A call that adds
state (an optimizer's first step) is recorded again at its next call.

A call that cannot be replayed runs eagerly, for that signature from then on: it reads a value back
(.item(), .tolist(), print, data-dependent control flow), draws random numbers, builds an autograd
graph it does not consume with backward() (or one through an argument that requires grad), uses a
tensor it does not reach, keeps a tensor it made elsewhere than in a state location, updates
parameters with an optimizer that has no fused kernel, or returns something other than tensors and
plain values. fullgraph=True makes that an error instead.
"""
import functools
import gc
import operator
import types

from . import autograd
from ._dynamo import eval_frame
from ._tensor import Tensor
from .backend import gpu, recording
from .backend.webgpu import runtime
from .nn.module import Module, _Changes
from .optim.optimizer import Optimizer

CACHE_SIZE_LIMIT = 8  # signatures recorded per function (torch._dynamo.config.cache_size_limit); then eager
MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
_PLAIN = (int, float, bool, str, bytes, type(None))


class GraphBreakError(RuntimeError):
    """fullgraph=True and the call cannot be replayed."""


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """torch.compile's signature. backend and dynamic are accepted and do not change what happens
    (each signature is recorded as is: dynamic shapes are recorded anew); mode must be one of torch's:
    "reduce-overhead" keeps each recording's intermediate buffers between its replays, as torch's CUDA
    graphs keep a private memory pool (the same buffers bound at each replay: less allocation and driver
    work per replay, the intermediates' memory held while the compiled function lives), the others
    change nothing;
    options are checked as torch checks them (OPTIONS), and options={"max_fusion_size": 1} turns the
    fusion of elementwise chains off; backend="eager" and disable=True run eagerly."""
    if mode not in MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(m for m in MODES if m)}")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    replaying = backend != "eager"
    fuse = _fuses(options) if replaying else False  # torch's eager backend ignores options
    if disable:
        return model
    if not callable(model):
        raise RuntimeError("compile() expects a callable (a function or an nn.Module)")
    pinned = mode == "reduce-overhead"
    if isinstance(model, Module):
        return OptimizedModule(model, CompiledFunction(model.__call__, fullgraph, replaying, fuse, module=model,
                                                       pinned=pinned))
    compiled = CompiledFunction(model, fullgraph, replaying, fuse, pinned=pinned)
    functools.update_wrapper(compiled, model)
    return compiled


# The options of torch.compile webtorch accepts: torch._inductor.config's names, defaults and types.
# max_fusion_size (how many kernels one fused kernel may take) is the one read: 1 (or less) turns
# fusion off (elementwise chains and matmul epilogues), so a replay runs each recorded kernel; larger
# values fuse, with no cap on a chain's length but the adapter's storage bindings. The others are
# those torch.compile's documentation names; they change nothing here (epilogue_fusion=False too).
OPTIONS = {"max_fusion_size": 64, "epilogue_fusion": True, "max_autotune": False, "fallback_random": False,
           "shape_padding": True, "trace.enabled": False, "trace.graph_diagram": False, "triton.cudagraphs": False}


def _fuses(options):
    """Whether replays fuse elementwise chains under these options, which are checked as torch checks them."""
    chosen = dict(OPTIONS)
    for key, value in (options or {}).items():
        name = key.replace("-", "_")
        if name not in OPTIONS:
            raise RuntimeError(f"Unexpected optimization option {key}, known options are {list(OPTIONS)}")
        if not isinstance(value, type(OPTIONS[name])):
            raise RuntimeError(f"Unexpected type of attr {key}, got {type(value).__name__} should be "
                               f"{type(OPTIONS[name]).__name__}")
        chosen[name] = value
    return chosen["max_fusion_size"] > 1


class _Entry:
    """One signature's recorded program, the state locations it binds, and how to rebuild the call's
    result and replaced state from the replay's buffers."""
    __slots__ = ("program", "locations", "outputs", "rebuild", "state_outputs", "ranges")


class _Checked:
    """What the last call of a compiled module found, for the next call's fast guard (the full one walks
    every module: ~5 ms per call for a 16-layer language model's decode step). While no module changed
    (nn.module._Changes: attributes, parameters, buffers, submodules, training flags), the state
    locations are those found then, and the state signature holds as long as each location holds the
    same object, each tensor there the same storage and layout, and the arguments' signature (with
    their storage sharing with that state) is the same. Anything else: the full guard decides.

    It runs at every replay (a decode step's hundreds of state tensors), so each test is one pass at C
    speed: the locations read by one getter per container or attribute name (_fetcher), the objects
    compared by identity, each tensor's layout compared with the one found (its fields are the same
    objects while nothing changed: compared by identity, element by element), the int tensors' value
    ranges only where the recording has one. Their buffers are those
    found then (a storage keeps its buffer)."""
    __slots__ = ("changes", "head", "fetch", "values", "fetched", "tensors", "layouts", "state_storages", "ranged",
                 "state_buffers", "entry")

    def __init__(self, changes, head, locations, values, entry):
        self.changes, self.head, self.entry = changes, head, entry
        self.fetch, order = _fetcher(locations)
        self.values, self.fetched = values, [values[i] for i in order]  # (fetch's order)
        self.tensors = [v for v in values if isinstance(v, Tensor)]
        self.layouts = _layouts(self.tensors)
        self.state_storages = _first_of_each_storage(self.tensors)
        # (index among the inputs and then the state tensors, the recorded range) where a range was recorded
        self.ranged = [(i, r) for i, r in enumerate(entry.ranges) if r is not None]
        self.state_buffers = [v._storage.buffer if isinstance(v, Tensor) else None for v in values]

    def replay(self, args, kwargs):
        """The replay's result, or None where the full guard must decide."""
        inputs = _Seen()
        head = (_signature(args, inputs), _signature(tuple(kwargs.items()), inputs), autograd.is_grad_enabled(),
                tuple(self.state_storages.get(id(t._storage)) for t in inputs))
        if head != self.head:
            return None
        try:
            values = self.fetch()
        except (KeyError, AttributeError):  # a location gone (a module's __dict__ written directly)
            return None
        if not all(map(operator.is_, values, self.fetched)) or _layouts(self.tensors) != self.layouts:
            return None
        if self.ranged:
            tensors = inputs + self.tensors
            for i, (lo, hi) in self.ranged:
                now = tensors[i]._storage.buffer.value_range
                if now is None or now[0] < lo or hi < now[1]:
                    return None
        return _replay(self.entry, inputs, self.values, self.state_buffers)  # (the same objects)


def _fetcher(locations):
    """(fetch, order): fetch() returns the objects at the locations (_get of each) in the order `order`
    lists the locations' indices: one itemgetter call per container for its keys, one map of an
    attrgetter per attribute name over the objects holding it (a parameter's .grad: one pass for all)."""
    items, attrs = {}, {}
    for i, (container, key, is_attr) in enumerate(locations):
        if is_attr:
            attrs.setdefault(key, ([], []))
            attrs[key][0].append(container)
            attrs[key][1].append(i)
        else:
            items.setdefault(id(container), (container, [], []))
            items[id(container)][1].append(key)
            items[id(container)][2].append(i)
    by_container = [(operator.itemgetter(*keys), container, len(keys) == 1) for container, keys, _ in items.values()]
    by_name = [(operator.attrgetter(name), holders) for name, (holders, _) in attrs.items()]
    order = [i for *_, indices in items.values() for i in indices] + [i for _, indices in attrs.values() for i in indices]

    def fetch():
        values = []
        for get, container, single in by_container:
            if single:
                values.append(get(container))
            else:
                values += get(container)
        for get, holders in by_name:
            values += map(get, holders)
        return values
    return fetch, order


def _layouts(tensors):
    """The tensors' layouts as the fast guard compares them (a comprehension: its attribute reads are the
    interpreter's specialised slot reads, twice as fast as an operator.attrgetter of the same fields)."""
    return [(t._storage, t.shape, t._stride, t._offset, t.dtype, t._requires_grad, t.grad_fn is None) for t in tensors]


def _first_of_each_storage(tensors):
    """id(storage) -> the index of the first of tensors with it."""
    first = {}
    for i, t in enumerate(tensors):
        first.setdefault(id(t._storage), i)
    return first


class CompiledFunction:
    def __init__(self, fn, fullgraph, replaying, fuse, module=None, pinned=False):
        self.fn, self.fullgraph, self.replaying, self.fuse, self.module = fn, fullgraph, replaying, fuse, module
        self.pinned = pinned  # mode="reduce-overhead": replays keep their intermediates' buffers (recording.Program)
        self.cache = {}  # signature -> _Entry, or the reason it runs eagerly
        self.stats = {"captures": 0, "replays": 0, "eager": 0}
        self.checked = None  # a compiled module's _Checked: the last call's guard, for a fast one

    @property
    def graph_breaks(self):
        return [v for v in self.cache.values() if isinstance(v, str)]

    def __get__(self, obj, objtype=None):  # a compiled method binds like the function it wraps
        return self if obj is None else types.MethodType(self, obj)

    def __call__(self, *args, **kwargs):
        if not self.replaying:
            self.stats["eager"] += 1
            return self.fn(*args, **kwargs)
        args, kwargs = _scalar_tensors_uploaded(args), dict(zip(kwargs, _scalar_tensors_uploaded(kwargs.values())))
        checked = self.checked
        if checked is not None and checked.changes == _Changes.count:
            result = checked.replay(args, kwargs)
            if result is not None:
                self.stats["replays"] += 1
                return result
        self.checked = None
        changes = _Changes.count
        inputs = _Seen()
        roots = _roots(self.module if self.module is not None else self.fn)
        locations = _locations(roots)
        values = [_get(loc) for loc in locations]
        key = (_signature(args, inputs), _signature(tuple(kwargs.items()), inputs), autograd.is_grad_enabled(),
               _state_signature(roots, locations, values, inputs))
        entry = self.cache.get(key)
        if entry.__class__ is _Entry:
            ranges = _ranges(inputs, values)
            if _within(entry.ranges, ranges):
                self.stats["replays"] += 1
                result = _replay(entry, inputs, values)
                # a module's (its roots are the module), which changed no module and put no new tensor in a
                # state location (a .grad: the next call's state signature may differ from this one's)
                if self.module is not None and _Changes.count == changes and not entry.state_outputs:
                    state = _first_of_each_storage([v for v in values if isinstance(v, Tensor)])
                    self.checked = _Checked(changes, (*key[:3], tuple(state.get(id(t._storage)) for t in inputs)),
                                            locations, values, entry)
                return result
            # an int tensor's values may lie outside those the recorded call's index checks were skipped
            # for: record again, for the hull of both ranges (what passed a bound check for each passes for it)
            return self._capture(key, args, kwargs, inputs, locations, values,
                                 [_hull(r, n) for r, n in zip(entry.ranges, ranges)])
        if entry is not None:
            self.stats["eager"] += 1
            return self.fn(*args, **kwargs)
        if len(self.cache) >= CACHE_SIZE_LIMIT:
            return self._eager(key, f"{CACHE_SIZE_LIMIT} signatures are recorded already (cache_size_limit)",
                               args, kwargs)
        tensors = inputs + [v for v in values if isinstance(v, Tensor)]
        if any(t.device.type != "webgpu" for t in tensors):
            return self._eager(key, "a tensor it uses is on cpu (only webgpu kernels are recorded)", args, kwargs)
        if autograd.is_grad_enabled() and any(t.requires_grad for t in inputs):
            return self._eager(key, "an argument requires grad (a replay would not accumulate its .grad)", args, kwargs)
        return self._capture(key, args, kwargs, inputs, locations, values)

    def _eager(self, key, reason, args, kwargs):
        self._break(key, reason)
        self.stats["eager"] += 1
        return self.fn(*args, **kwargs)

    def _break(self, key, reason):
        self.cache[key] = reason
        if self.fullgraph:
            raise GraphBreakError(f"webtorch.compile(fullgraph=True): the call cannot be replayed: {reason}")

    def _capture(self, key, args, kwargs, inputs, locations, values, ranges=None):
        rt = runtime()
        ranges = ranges or _ranges(inputs, values)
        rt.flush()
        self.stats["captures"] += 1
        with recording.Recorder(rt) as recorder:
            result = _consumed_graphs_dropped(self.fn(*args, **kwargs))
            gc.collect()  # tensors in reference cycles are released now, as recorded events
        try:
            if recorder.broken:
                raise recording.GraphBreak(recorder.broken)
            after = _locations(_roots(self.module if self.module is not None else self.fn))
            if [(id(c), k) for c, k, _ in after] != [(id(c), k) for c, k, _ in locations]:
                return result  # it added state (an optimizer's first step): recorded again at the next call
            entry = _Entry()
            entry.locations, entry.ranges = locations, ranges
            entry.program = recording.Program(recorder, [t._storage.buffer for t in inputs],
                                              [v._storage.buffer if isinstance(v, Tensor) else None for v in values],
                                              self.fuse, pinned=self.pinned)
            leaves, entry.rebuild = _flatten(result)
            entry.outputs = [_output_slot(entry.program, x) for x in leaves]
            entry.state_outputs = []
            for j, (loc, before) in enumerate(zip(locations, values)):
                now = _get(loc)
                if now is before:
                    continue
                if now is not None and not isinstance(now, Tensor):
                    raise recording.GraphBreak(f"it puts a {type(now).__name__} where a tensor was")
                entry.state_outputs.append((j, None if now is None else _tensor_slot(entry.program, now)))
            specs = [o[1] for o in entry.outputs if o[0] == "tensor"] + [s for _, s in entry.state_outputs if s]
            used = {slot[1] for slot, *_ in specs if slot[0] == "new"}
            if entry.program.live_new - used:
                raise recording.GraphBreak("it keeps a tensor it made elsewhere than in its result or the state "
                                           "it reaches (a list, a global it does not name), which a replay would "
                                           "not update")
        except recording.GraphBreak as e:
            self._break(key, str(e))
            return result
        self.cache[key] = entry
        return result


def _consumed_graphs_dropped(result):
    """result with its tensors whose graph backward() consumed detached, as a replay returns them: the
    graph's saved tensors are released within the recorded call, not kept as if it made state."""
    leaves, rebuild = _flatten(result)
    if not any(isinstance(x, Tensor) and x.grad_fn is not None and x.grad_fn.inputs is None for x in leaves):
        return result
    return rebuild([Tensor(x._storage, x.shape, x._stride, x._offset)  # not detach(): a view keeps its base
                    if isinstance(x, Tensor) and x.grad_fn is not None and x.grad_fn.inputs is None else x
                    for x in leaves])


def _ranges(inputs, values):
    """The known value ranges of int arguments and state tensors (uploaded from the host): index
    checks that these settle run no kernel and read nothing back, so a replay guards on them instead."""
    return [t._storage.buffer.value_range for t in inputs + [v for v in values if isinstance(v, Tensor)]]


def _within(recorded, ranges):
    """Whether the int values' ranges lie within those a recording's index checks were skipped for."""
    return all(r is None or n is not None and r[0] <= n[0] and n[1] <= r[1] for r, n in zip(recorded, ranges))


def _hull(a, b):
    return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))


def _tensor_slot(program, x):
    """Where a result or new state tensor's storage comes from: a slot, with its view's layout."""
    if x.grad_fn is not None and x.grad_fn.inputs is not None:
        raise recording.GraphBreak("its result requires grad and backward() did not consume its graph (a replay "
                                   "builds no autograd graph)")
    storage = x._storage
    if storage.device_type != "webgpu":
        raise recording.GraphBreak("it returns a cpu tensor (cpu work is not recorded)")
    slot = program.slot(storage.buffer)
    if slot is None:
        raise recording.GraphBreak("it returns a tensor that is neither made by it, an argument, nor state it reaches")
    # a range known at the end of the recorded call (an argmax's indices, uploaded or filled ints) holds for
    # each replay's values too: the replay runs the same kernels, uploads the same bytes
    return slot, storage.dtype, storage.numel, tuple(x.shape), x._stride, x._offset, storage.buffer.value_range


def _output_slot(program, x):
    if isinstance(x, Tensor):
        return ("tensor", _tensor_slot(program, x))
    if not isinstance(x, _PLAIN):
        raise recording.GraphBreak(f"it returns a {type(x).__name__}, not tensors and plain values")
    return ("value", x)


def _replay(entry, inputs, values, state_buffers=None):
    """state_buffers: the values' buffers (None where a value is no tensor), when the caller knows them."""
    rt = runtime()
    if state_buffers is None:
        state_buffers = [v._storage.buffer if isinstance(v, Tensor) else None for v in values]
    new = entry.program.replay(rt, [t._storage.buffer for t in inputs], state_buffers)
    storages = {}

    def tensor(spec):
        (kind, ref), dtype, numel, shape, stride, offset, value_range = spec
        if kind == "input":
            storage = inputs[ref]._storage
        elif kind == "state":
            storage = values[ref]._storage
        else:
            storage = storages.get(ref)
            if storage is None:
                storage = storages[ref] = gpu.Storage.adopt(dtype, numel, new[ref], rt)
                storage.buffer.value_range = value_range
        return Tensor(storage, shape, stride, offset)

    for j, spec in entry.state_outputs:
        _set(entry.locations[j], None if spec is None else tensor(spec))
    return entry.rebuild([out[1] if out[0] == "value" else tensor(out[1]) for out in entry.outputs])


def _scalar_tensors_uploaded(values):
    """values with each 0-d cpu tensor (torch's scalar tensor, which CUDA ops and compiled graphs take as a
    scalar) copied to webgpu at each call: the recorded kernels read its value from that input buffer,
    so a replay sees the value of this call, not the recorded one's."""
    out = []
    for v in values:
        if isinstance(v, Tensor) and not v.shape and v._storage.device_type == "cpu":
            v = v.to("webgpu")
        elif isinstance(v, (tuple, list)):
            v = type(v)(_scalar_tensors_uploaded(v))
        out.append(v)
    return tuple(out)


# -- what a call reaches, and its signature -------------------------------------------------------
def _signature(values, inputs):
    """A hashable description of arguments; their tensors are appended to inputs."""
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(_layout(v, inputs))
            inputs.append(v)
        elif isinstance(v, (tuple, list)):
            out.append((type(v), _signature(v, inputs)))
        elif isinstance(v, dict):
            out.append((dict, _signature(tuple(v.items()), inputs)))
        elif isinstance(v, _PLAIN) or v.__class__.__name__ == "dtype":
            out.append(v)
        else:
            out.append(("id", id(v)))  # any other object: the same object
    return tuple(out)


class _Seen(list):
    """Tensors in the order met, and the index of the first one with each storage (a dict: a call
    reaching hundreds of state tensors would otherwise search the list for each)."""

    def __init__(self, tensors=()):
        super().__init__()
        self.first = {}
        for t in tensors:
            self.append(t)

    def append(self, t):
        self.first.setdefault(id(t._storage), len(self))
        super().append(t)


def _layout(t, seen):
    """A tensor's guarded description; shared: the first of seen (a _Seen) with its storage."""
    shared = seen.first.get(id(t._storage))
    return ("T", t.device.type, t.dtype, tuple(t.shape), t._stride, t._offset, t.requires_grad, shared)


def _roots(obj):
    """What a compiled callable reaches: a module, a bound method's object, or a function's closure
    cells and the globals it names, as (container, key, is_attr) locations or objects."""
    if isinstance(obj, Module):
        return [obj]
    if isinstance(obj, types.MethodType):
        return [obj.__self__] + _roots(obj.__func__)
    code = getattr(obj, "__code__", None)
    if code is None:
        return [obj]
    roots = [(cell, "cell_contents", True) for cell in (obj.__closure__ or ()) if _filled(cell)]
    names = obj.__globals__
    return roots + [(names, n, False) for n in code.co_names if n in names]


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _get(location):
    container, key, is_attr = location
    return getattr(container, key) if is_attr else container[key]


def _set(location, value):
    container, key, is_attr = location
    if is_attr:
        setattr(container, key, value)
    else:
        container[key] = value


def _root_value(root):
    return _get(root) if isinstance(root, tuple) else root


def _module_tree(root):
    """root.modules()'s order (each module once, depth first), without its nested generators: each
    compiled call walks them twice, a model's hundreds."""
    out, seen, stack = [], set(), [root]
    while stack:
        m = stack.pop()
        if id(m) in seen:
            continue
        seen.add(id(m))
        out.append(m)
        stack.extend(reversed([c for c in m._modules.values() if c is not None]))
    return out


def _locations(roots):
    """The state locations the roots reach, in a fixed order: (container, key, is_attr), each once."""
    out, seen = [], set()

    def add(container, key, is_attr):
        if (id(container), key) not in seen:
            seen.add((id(container), key))
            out.append((container, key, is_attr))

    def tensor(container, key, is_attr, t):
        add(container, key, is_attr)
        if t is not None and t.requires_grad and t.grad_fn is None:
            add(t, "grad", True)  # a leaf's gradient, None or not

    def walk(value, location=None, depth=0):
        if isinstance(value, Tensor) and location is not None:
            tensor(*location, value)
        elif isinstance(value, Module):
            for m in _module_tree(value):
                for name, p in m._parameters.items():
                    tensor(m._parameters, name, False, p)
                for name in m._buffers:
                    add(m._buffers, name, False)
                for name, v in vars(m).items():
                    if isinstance(v, Tensor):
                        tensor(m, name, True, v)
        elif isinstance(value, Optimizer):
            for group in value.param_groups:
                for i, p in enumerate(group["params"]):
                    tensor(group["params"], i, False, p)
            for state in value.state.values():
                for name, v in state.items():
                    if isinstance(v, Tensor):
                        add(state, name, False)
        elif depth == 0 and hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType,
                                                                                   types.FunctionType)):
            for name, v in vars(value).items():  # an object's attributes (a trainer's model and optimizer)
                walk(v, (value, name, True), 1)

    for root in roots:
        walk(_root_value(root), root if isinstance(root, tuple) else None)
    return out


def _kind(v):
    """An optimizer option as guarded: a number by whether it is zero (its value is read at each replay)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return type(v), v != 0
    if isinstance(v, (tuple, list)):
        return tuple(_kind(x) for x in v)
    return v


def _state_signature(roots, locations, values, inputs):
    """Guards on what the call reaches: each state location's tensor layout and sharing, the modules'
    training flags and plain attributes, optimizers' options, and plain closure values and globals."""
    plain = []
    for root in roots:
        value = _root_value(root)
        candidates = [value] + ([v for v in vars(value).values()] if hasattr(value, "__dict__") and not isinstance(
            value, (type, types.ModuleType, types.FunctionType, Module, Optimizer)) else [])
        for v in candidates:
            if isinstance(v, Module):
                for m in _module_tree(v):
                    plain.append(m.training)
                    plain += [(k, x) for k, x in vars(m).items() if isinstance(x, _PLAIN)]
            elif isinstance(v, Optimizer):
                plain += [tuple((k, _kind(x)) for k, x in g.items() if k != "params") for g in v.param_groups]
            elif isinstance(v, _PLAIN):
                plain.append(v)
    seen = _Seen(inputs)
    state = []
    for (container, key, _), v in zip(locations, values):
        if isinstance(v, Tensor):
            state.append((id(container), key, _layout(v, seen)))
            seen.append(v)
        else:
            state.append((id(container), key, None if v is None else ("id", id(v))))
    return tuple(plain), tuple(state)


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


def _module_compile(self, *args, **kwargs):
    """Module.compile: this module's calls (hooks included) run compiled from now on, in place: unlike
    torch.compile(module), the module keeps its class and its state_dict() keys."""
    self.__dict__["_compiled_call_impl"] = compile(self._call_impl, *args, **kwargs)


Module.compile = _module_compile


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


eval_frame.OptimizedModule = OptimizedModule  # torch._dynamo.eval_frame's name for it

"""Fusion of a recorded program's elementwise chains (webtorch.compile).

A Program's steps (recording.py) hold each elementwise kernel as eager ops launched it: the kernel's
key (kernels.elementwise: op, operand dtypes, compute dtypes, result dtype, contiguous), its buffer
slots and its params words (shape, each view's offset and strides, the scalars' bits). Runs of such
kernels, with only buffer allocations and releases between them, become one kernel
(kernels.elementwise_program) where each op takes the values of earlier ones from registers: one
dispatch, and no memory traffic for the intermediates.

An op joins the chain before it when it has the same number of elements and iteration shape, reads
every buffer the chain wrote through the very view the chain wrote it (element i of its own from
element i of the chain's: anything else, a broadcast read, needs the whole buffer written first),
writes no buffer the chain reads or wrote, and the fused kernel stays within the adapter's storage
bindings and the params window. A value is still stored where something else needs it: a result or
new state (live at the end of the call), an argument's or a state tensor's buffer (in-place ops), a
buffer any other kernel or upload of the program uses (saved for backward, read by a matmul). Those
intermediates that nothing else uses get no buffer at all.

Each op computes as its own kernel did (the same expression from ops_table.py on the same compute
type, its result rounded to its dtype's storage as a store would), so results equal unfused ones.
"""
import math

from .. import _dtypes as dt
from ..ops_table import ELEMENTWISE
from . import kernels
from .webgpu import META_WINDOW


class _Op:
    """One recorded elementwise kernel: its op and dtypes, and its views as (slot, offset, strides);
    strides None for a view that steps through memory with the output index (offset + i)."""
    __slots__ = ("index", "op", "operands", "computes", "out_dtype", "out", "numel", "shape")

    def __init__(self, index, step):
        _, kernel, slots, meta, groups, _ = step
        _, name, operand_dtypes, compute_names, out_name, contiguous = kernel[0]
        self.index, self.op = index, ELEMENTWISE[name]
        self.computes = [dt.BY_NAME[c] for c in compute_names]
        self.out_dtype = dt.BY_NAME[out_name]
        self.numel, rank = meta[0], meta[1]
        shape = tuple(meta[2:2 + rank])
        self.shape = None if contiguous else shape
        views, word = [], 2 + rank
        for slot in slots:
            strides = None if contiguous else _normal(shape, meta[word + 1:word + 1 + rank])
            views.append((slot, meta[word], strides))
            word += 1 + rank
        self.out = views[0]
        tensors = iter(views[1:])
        self.operands = []
        for d in operand_dtypes:
            if d is None:
                self.operands.append(("scalar", None, meta[word]))
                word += 1
            else:
                self.operands.append(("view", dt.BY_NAME[d], next(tensors)))


def _normal(shape, strides):
    """strides over shape with size-1 dims' strides zeroed; None when they are row-major contiguous."""
    strides = tuple(0 if size == 1 else s for size, s in zip(shape, strides))
    return None if strides == _row_major(shape) else strides


def _row_major(shape):
    out, step = [], 1
    for size in reversed(shape):
        out.append(0 if size == 1 else step)
        step *= size
    return tuple(reversed(out))


class _Chain:
    """Ops being fused, with what the fused kernel would bind: the buffers and views it reads from
    memory, and the values it must store (those some step outside the chain, or the call's result,
    needs)."""

    def __init__(self, users, live_new, max_bindings):
        self.users, self.live_new, self.max_bindings = users, live_new, max_bindings
        self.ops, self.numel, self.shape = [], None, None
        self.written = {}  # slot -> (op position, view) of the op writing it
        self.read = set()  # slots read from memory
        self.loads = set()  # (view, storage type) read from memory
        self.scalars = set()
        self.waiting = {}  # written slot -> how many steps outside the chain bind it (inf: a result); if any

    def stored(self):
        return [op for op in self.ops if op.out[0] in self.waiting]

    def add(self, op):
        """Adds op when it can join (see the module's docstring); returns whether it did."""
        if self.ops and (op.numel != self.numel or
                         op.shape is not None and self.shape is not None and op.shape != self.shape):
            return False
        loads, scalars, reads, consumed = set(), set(), set(), set()
        for kind, d, ref in op.operands:
            if kind == "scalar":
                scalars.add(ref)
                continue
            written = self.written.get(ref[0])
            if written is not None:
                if written[1] != ref or self.ops[written[0]].out_dtype is not d:
                    return False
                consumed.add(ref[0])
                continue
            reads.add(ref[0])
            loads.add((ref, kernels.STORAGE[d]))
        slot = op.out[0]
        if slot in self.read or slot in reads or slot in self.written:
            return False
        waiting = {s: n - (s in consumed) for s, n in self.waiting.items() if n - (s in consumed)}
        n = math.inf if slot[0] != "new" or slot[1] in self.live_new else len(self.users[slot] - {op.index})
        if n:
            waiting[slot] = n
        stores = {(op.out, kernels.STORAGE[op.out_dtype])} if n else set()
        for s in waiting.keys() - {slot}:
            writer = self.ops[self.written[s][0]]
            stores.add((writer.out, kernels.STORAGE[writer.out_dtype]))
        views = self.loads | loads | stores
        shape = self.shape or op.shape or (op.numel,)
        if len({(ref[0], t) for ref, t in views}) > self.max_bindings or \
                2 + len(shape) + len(views) * (1 + len(shape)) + len(self.scalars | scalars) > META_WINDOW // 4:
            return False
        self.waiting = waiting
        self.written[slot] = (len(self.ops), op.out)
        self.read |= reads
        self.loads |= loads
        self.scalars |= scalars
        self.numel, self.shape = op.numel, self.shape or op.shape
        self.ops.append(op)
        return True


def fuse(steps, live_new, max_bindings):
    """steps with each fusable chain of elementwise runs replaced by one run of a fused kernel
    (step ("fused", kernel, slots, meta, groups, n_stores)), and the allocations and releases of the
    buffers it no longer writes dropped. live_new: the "new" slots allocated at the end of the call.
    max_bindings: storage buffers a kernel may bind (the params buffer is one of them)."""
    users = {}  # slot -> indices of the steps that bind it
    for index, step in enumerate(steps):
        if step[0] == "run":
            for slot in step[2]:
                users.setdefault(slot, set()).add(index)
        elif step[0] == "upload":
            users.setdefault(step[1], set()).add(index)
    chains, chain = [], None
    for index, step in enumerate(steps):
        kind = step[0]
        if kind in ("alloc", "release"):
            continue
        op = _Op(index, step) if kind == "run" and step[1][0][0] == "ew" and step[4] else None
        if op is None or chain is None or not chain.add(op):
            if chain is not None and len(chain.ops) > 1:
                chains.append(chain)
            chain = None
            if op is not None:
                chain = _Chain(users, live_new, max_bindings - 1)
                if not chain.add(op):
                    chain = None
    if chain is not None and len(chain.ops) > 1:
        chains.append(chain)
    if not chains:
        return steps
    dropped = set()  # "new" slots no step binds any more
    replaced = {}  # step index -> the steps that take its place ([] for a fused op's own)
    for chain in chains:
        stored = chain.stored()
        dropped |= {op.out[0] for op in chain.ops} - {op.out[0] for op in stored}
        first, last = chain.ops[0].index, chain.ops[-1].index
        between = [steps[i] for i in range(first, last + 1) if steps[i][0] in ("alloc", "release")]
        for i in range(first, last + 1):
            replaced[i] = []
        # allocations before the fused kernel and releases after it: no buffer it binds is handed
        # to another of its slots meanwhile
        replaced[last] = [s for s in between if s[0] == "alloc"] + [_fused_step(chain, stored)] + \
            [s for s in between if s[0] == "release"]
    out = []
    for index, step in enumerate(steps):
        for s in replaced.get(index, [step]):
            if s[0] in ("alloc", "release") and ("new", s[1]) in dropped:
                continue
            out.append(s)
    return out


def _fused_step(chain, stored):
    """The fused kernel's run step: outputs (the stored values' buffers) bound first, then inputs."""
    contiguous = all(ref[2] is None for ref, _ in chain.loads) and all(op.out[2] is None for op in stored)
    shape = (chain.numel,) if contiguous else chain.shape
    bindings = {}  # (slot, storage type) -> position
    for op in stored:
        bindings.setdefault((op.out[0], kernels.STORAGE[op.out_dtype]), (op.out_dtype, True))
    n_stores = len(bindings)
    for op in chain.ops:
        for kind, d, ref in op.operands:
            if kind == "view" and ref[0] in chain.read:
                bindings.setdefault((ref[0], kernels.STORAGE[d]), (d, False))
    position = {key: b for b, key in enumerate(bindings)}
    views, scalars, members, written = {}, {}, [], {}
    meta = [chain.numel, len(shape), *shape]

    def view(ref, d):
        key = (ref, kernels.STORAGE[d])
        if key not in views:
            views[key] = len(views)
            meta.extend([ref[1], *(([1] if contiguous else _row_major(shape)) if ref[2] is None else ref[2])])
        return views[key], position[(ref[0], key[1])]

    view_bindings = {}
    for k, op in enumerate(chain.ops):
        operands = []
        for kind, d, ref in op.operands:
            if kind == "scalar":
                operands.append(("scalar", scalars.setdefault(ref, len(scalars))))
            elif ref[0] in written:
                operands.append(("member", written[ref[0]]))
            else:
                v, b = view(ref, d)
                view_bindings[v] = b
                operands.append(("view", v))
        stores = []
        if op in stored:
            v, b = view(op.out, op.out_dtype)
            view_bindings[v] = b
            stores.append(v)
        written[op.out[0]] = k
        members.append((op.op, operands, op.computes, op.out_dtype, stores))
    meta.extend(scalars)  # in insertion order: the s-th scalar word
    binding_list = list(bindings.values())
    view_list = [view_bindings[v] for v in range(len(views))]
    key = ("fused", tuple((d.name, w) for d, w in binding_list), tuple(view_list),
           tuple((op.name, tuple(operands), tuple(c.name for c in computes), out_dtype.name, tuple(stores))
                 for op, operands, computes, out_dtype, stores in members), contiguous)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _KERNELS[key] = (key, kernels.elementwise_program(binding_list, view_list, members, contiguous),
                                  "w" * n_stores + "r" * (len(binding_list) - n_stores))
    per = kernels.ELEMENTWISE_PER if contiguous else 1
    return ("fused", kernel, [slot for slot, _ in bindings], meta, math.ceil(chain.numel / (256 * per)), n_stores)


_KERNELS = {}  # fused kernels by key: a signature recorded again builds no WGSL

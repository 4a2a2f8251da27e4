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
writes no buffer the chain wrote, nor one it reads unless through the very view it writes (an
in-place update, x.add_(1): element i read, then written, by one invocation), and the fused kernel
stays within the adapter's storage bindings and the params window. A value is still stored where something else needs it: a result or
new state (live at the end of the call), an argument's or a state tensor's buffer (in-place ops), a
buffer any other kernel or upload of the program uses (saved for backward, read by a matmul). Those
intermediates that nothing else uses get no buffer at all.

A chain may also start at a matmul kernel (a linear layer's bias add, activation, scaling, residual
add): its ops then run in the matmul kernel's store of each element of C (kernels.matmul_epilogue), C's
value being the first member, rounded to C's dtype as the store would. The same rules decide what
joins and what is stored (C itself only where something else reads it); the fused kernel also binds the
matmul's A and B, which the chain may read but not write.

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


# The matmul kernels with a store hook (kernels.py), by their key's name (C's dtype follows it). The
# tensor-core kernel (matmul_subgroup_matrix) has none: an epilogue there never ran anywhere (lavapipe
# and SwiftShader have no subgroup matrices), so its chain stays a kernel of its own.
MATMUL_HOOKED = {"matmul", "matmul_small", "matmul_vec4", "matmul_registers"}
# Those of them whose chains run in their store: the kernels of CPU adapters and small products, where
# lavapipe ran a compiled encoder layer as fast or faster so. The GPU kernels have the hook but keep
# their own store: on the H200 a compiled float32 encoder layer (32x128x384) ran in 4.5 ms with
# matmul_vec4.wgsl's epilogues against 0.84 without, float16 on the tensor-core kernel 1.03 against 0.62
# (bench/, one run each; matmul_vec4's accumulators likely left registers when the inlined epilogue
# stopped its store loop from being unrolled).
EPILOGUE_KERNELS = {"matmul_small", "matmul_registers"}


class _Matmul:
    """A recorded matmul kernel as a chain's first member: the value of each element of C (contiguous,
    of numel elements, n per row), computed in f32 and rounded to C's dtype as its store would."""
    __slots__ = ("index", "step", "op", "operands", "computes", "out_dtype", "out", "numel", "shape", "n")

    def __init__(self, index, step, out_dtype):
        _, kernel, slots, meta, _, _ = step
        self.index, self.step, self.op = index, step, ELEMENTWISE["copy"]
        self.operands, self.computes, self.out_dtype = [("value", None, None)], [dt.float32], out_dtype
        self.out, self.shape, self.n = (slots[0], 0, None), None, meta[1]
        self.numel = meta[0] * meta[1] * math.prod(meta[10:10 + meta[3]])


def _matmul(index, step):
    """step as a chain's first member where it is a matmul kernel of float C with elements, else None."""
    key = step[1][0]
    if step[0] != "run" or key[0] not in EPILOGUE_KERNELS:
        return None
    out = dt.BY_NAME[key[1]]
    if not out.is_floating_point:
        return None
    mm = _Matmul(index, step, out)
    return mm if mm.numel else None


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

    def __init__(self, users, live_new, max_bindings, matmul=None):
        self.users, self.live_new, self.matmul = users, live_new, matmul
        # a matmul's kernel also binds A and B and takes its own params words
        self.max_bindings = max_bindings - (2 if matmul else 0)
        self.extra_words = len(matmul.step[3]) if matmul else 0
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
            if kind == "value":
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
        if slot in self.written or (slot in self.read or slot in reads) and not self._in_place(op, loads):
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
                self.extra_words + 2 + len(shape) + len(views) * (1 + len(shape)) + len(self.scalars | scalars) > \
                META_WINDOW // 4:
            return False
        self.waiting = waiting
        self.written[slot] = (len(self.ops), op.out)
        self.read |= reads
        self.loads |= loads
        self.scalars |= scalars
        self.numel, self.shape = op.numel, self.shape or op.shape
        self.ops.append(op)
        return True


    def _in_place(self, op, loads):
        """Whether op may write the buffer the chain reads from memory: an in-place update (x.add_(1): an op
        into a new buffer, then a copy of it into x). Each index then loads x's element before it stores
        it, in the same invocation, when every load of x is through the very view op writes (same
        offset and strides, same storage type), that view maps each index to an element of its own (no
        broadcast), and no matmul's A or B is involved; the fused kernel binds x once, read-write."""
        store = (op.out, kernels.STORAGE[op.out_dtype])
        views = {view for view in self.loads | loads if view[0][0] == op.out[0]}
        strides = op.out[2]
        return self.matmul is None and views == {store} and \
            (strides is None or all(st or size == 1 for st, size in zip(strides, op.shape)))


def fuse(steps, live_new, max_bindings):
    """steps with each fusable chain of elementwise runs (after a matmul's, or not) replaced by one run
    of a fused kernel (step ("fused", kernel, slots, meta, groups, written): written, the positions in
    slots of the buffers it writes besides the first), and the allocations and releases of the buffers
    it no longer writes dropped. live_new: the "new" slots allocated at the end of the call.
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
            first = op or _matmul(index, step)
            if first is not None:
                chain = _Chain(users, live_new, max_bindings - 1, None if op else first)
                if not chain.add(first):
                    chain = None
                elif not op:
                    chain.read |= set(step[2][1:])  # A and B: no op of the chain may write them
    if chain is not None and len(chain.ops) > 1:
        chains.append(chain)
    if not chains:
        return steps
    dropped = set()  # "new" slots no step binds any more
    replaced = {}  # step index -> the steps that take its place ([] for a fused op's own)
    for chain in chains:
        stored = chain.stored()
        if not stored:  # nothing the call uses: left as recorded
            continue
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
    """The fused kernel's run step: outputs (the stored values' buffers) bound first, then inputs; a
    matmul's A and B second and third, after the first output."""
    mm = chain.matmul
    contiguous = all(ref[2] is None for ref, _ in chain.loads) and all(op.out[2] is None for op in stored)
    shape = (chain.numel,) if contiguous else chain.shape
    bindings = {}  # (slot, storage type) -> (dtype, written); None: the matmul's A and B
    for op in stored:
        bindings.setdefault((op.out[0], kernels.STORAGE[op.out_dtype]), (op.out_dtype, True))
        if mm and len(bindings) == 1:
            bindings.update({("matmul", "a"): (None, False), ("matmul", "b"): (None, False)})
    for op in chain.ops:
        for kind, d, ref in op.operands:
            if kind == "view" and ref[0] in chain.read:
                bindings.setdefault((ref[0], kernels.STORAGE[d]), (d, False))
    position = {key: b for b, key in enumerate(bindings)}
    views, scalars, members, written = {}, {}, [], {}
    view_bindings = {}

    def view(ref, d):
        key = (ref, kernels.STORAGE[d])
        if key not in views:
            views[key] = len(views)
            view_bindings[views[key]] = position[(ref[0], key[1])]
        return views[key]

    for k, op in enumerate(chain.ops):
        operands = []
        for kind, d, ref in op.operands:
            if kind == "scalar":
                operands.append(("scalar", scalars.setdefault(ref, len(scalars))))
            elif kind == "value":
                operands.append(("value", None))
            elif ref[0] in written:
                operands.append(("member", written[ref[0]]))
            else:
                operands.append(("view", view(ref, d)))
        stores = [view(op.out, op.out_dtype)] if op in stored else []
        written[op.out[0]] = k
        members.append((op.op, operands, op.computes, op.out_dtype, stores))
    refs = [ref for ref, _ in views]  # in view order
    binding_list = list(bindings.values())
    view_list = [view_bindings[v] for v in range(len(views))]
    members_key = tuple((op.name, tuple(operands), tuple(c.name for c in computes), out_dtype.name, tuple(stores))
                        for op, operands, computes, out_dtype, stores in members)
    slots = [slot for slot, _ in bindings]
    written_positions = tuple(b for b, (_, w) in enumerate(binding_list) if w and b)
    if mm is None:
        meta = [chain.numel, len(shape), *shape]
        for ref in refs:
            meta.extend([ref[1], *(([1] if contiguous else _row_major(shape)) if ref[2] is None else ref[2])])
        key = ("fused", tuple((d.name, w) for d, w in binding_list), tuple(view_list), members_key, contiguous)
        kernel = _KERNELS.get(key)
        if kernel is None:
            kernel = _KERNELS[key] = (key, kernels.elementwise_program(binding_list, view_list, members, contiguous),
                                      "".join("w" if w else "r" for _, w in binding_list))
        per = kernels.ELEMENTWISE_PER if contiguous else 1
        groups = math.ceil(chain.numel / (256 * per))
    else:
        _, mm_kernel, mm_slots, mm_meta, groups, _ = mm.step
        slots[1:3] = mm_slots[1:]
        shape, strides = _epilogue_layout(shape, [_row_major(shape) if ref[2] is None else ref[2] for ref in refs],
                                          mm.n)
        by_rows = shape[-1] == mm.n
        meta = [*mm_meta, chain.numel, len(shape), *shape]
        for ref, view_strides in zip(refs, strides):
            meta.extend([ref[1], *view_strides])
        key = ("fused_matmul", mm_kernel[0], mm_meta[3], tuple((d and d.name, w) for d, w in binding_list),
               tuple(view_list), members_key, len(shape), by_rows)
        kernel = _KERNELS.get(key)
        if kernel is None:
            source, access = kernels.matmul_epilogue(mm_kernel[0], mm_meta[3], binding_list, view_list, members,
                                                     len(shape), by_rows)
            kernel = _KERNELS[key] = (key, source, access)
    meta.extend(scalars)  # in insertion order: the s-th scalar word
    return ("fused", kernel, slots, meta, groups, written_positions)


def _epilogue_layout(shape, strides, n):
    """shape and each view's strides over it with dims merged where every view steps through them as
    one (size-1 dims dropped), and the last dim split at n (C's row length) where it is a multiple of
    it: a matmul epilogue then takes the column from C's own and unravels only the row."""
    dims = []  # (size, strides of the views)
    for d, size in enumerate(shape):
        if size == 1:
            continue
        st = [s[d] for s in strides]
        if dims and all(outer == inner * size for outer, inner in zip(dims[-1][1], st)):
            dims[-1] = (dims[-1][0] * size, st)
        else:
            dims.append((size, st))
    if not dims:
        dims = [(1, [0] * len(strides))]
    size, st = dims[-1]
    if size > n and size % n == 0:
        dims[-1:] = [(size // n, [s * n for s in st]), (n, st)]
    return tuple(size for size, _ in dims), [[d[1][v] for d in dims] for v in range(len(strides))]


_KERNELS = {}  # fused kernels by key: a signature recorded again builds no WGSL

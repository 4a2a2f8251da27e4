"""The recorded kernel sequence: a call's kernels recorded once and replayed with other buffers bound
(webtorch.compile's program). It sits between the ops and the runtime: eagerly, the runtime records
each kernel into its batch and runs it at the next flush; under a Recorder the same calls are also
kept as events, and a Program replays them later without the Python that issued them.

While a Recorder is installed on the runtime, the runtime's calls that ops make (alloc, release,
run, run_dynamic, upload) are seen as events; a readback, or a kernel that draws random numbers, ends
the recording as unreplayable, as does unreplayable() from a layer above (an optimizer update made of
separate ops). The events become a Program: kernels whose buffers are named by slot, "input" i (the
i-th input buffer of each replay), "state" j (the buffer of the j-th state tensor at each replay:
parameters, gradients, optimizer state, found by the caller) or "new" k (allocated and released
during the replay where the recorded call allocated and released it).
"""
import array

from . import fusion


class GraphBreak(Exception):
    """What made a recorded call unreplayable."""


_active = []  # the installed Recorder, if any


def unreplayable(reason):
    """Marks the call being recorded, if any, as one a replay would get wrong."""
    if _active:
        _active[-1].stop(reason)


class Recorder:
    """Installed on a runtime for one eager call; holds its events in order."""

    def __init__(self, runtime):
        self.runtime = runtime
        # ("alloc", buf) ("release", buf) ("run", kernel, buffers, meta, groups, meta_fn) ("upload", buf, bytes)
        self.events = []
        self.broken = None  # the reason the call cannot be replayed, if any
        self._saved = {}

    def __enter__(self):
        rt = self.runtime
        events = self.events
        for name in ("alloc", "release", "run", "run_dynamic", "upload", "download", "download_async", "synchronize"):
            self._saved[name] = rt.__dict__.get(name)  # an instance hook (a profiler's) stays underneath
        inner = {name: getattr(rt, name) for name in self._saved}

        def alloc(nbytes):
            buf = inner["alloc"](nbytes)
            events.append(("alloc", buf))
            return buf

        def release(buf):
            events.append(("release", buf))
            inner["release"](buf)

        def run(kernel, buffers, meta, groups):
            if kernel[0][0] == "philox":
                self.stop("it draws random numbers (a replay would repeat them)")
            events.append(("run", kernel, list(buffers), list(meta), groups, None))
            inner["run"](kernel, buffers, meta, groups)

        def run_dynamic(kernel, buffers, meta_fn, groups):
            meta = meta_fn()
            events.append(("run", kernel, list(buffers), list(meta), groups, meta_fn))
            inner["run"](kernel, buffers, meta, groups)

        def upload(buf, data):
            events.append(("upload", buf, bytes(data)))
            inner["upload"](buf, data)

        def reads(name):
            def read(*args, **kwargs):
                self.stop("it reads a value back from the GPU (.item(), .tolist(), .cpu(), print, bool(tensor))")
                return inner[name](*args, **kwargs)
            return read

        hooks = {"alloc": alloc, "release": release, "run": run, "run_dynamic": run_dynamic, "upload": upload}
        for name in self._saved:
            setattr(rt, name, hooks.get(name) or reads(name))
        rt.hooks += 1  # eager elementwise ops now allocate and record through these
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _active.remove(self)
        rt = self.runtime
        rt.hooks -= 1
        for name, saved in self._saved.items():
            if saved is None:
                delattr(rt, name)
            else:
                setattr(rt, name, saved)
        return False

    def stop(self, reason):
        if self.broken is None:
            self.broken = reason


class Program:
    """The kernels of one recorded call, with their buffers as slots.

    input_buffers: the recorded call's input buffers, in input order; state_buffers: the buffers of
    its state tensors (None where a state location held no tensor); fuse: whether chains of elementwise
    kernels become one kernel each (backend/fusion.py), or replay as recorded. Raises GraphBreak when a
    kernel uses a buffer that is none of these and was not allocated by the call.
    """

    def __init__(self, recorder, input_buffers, state_buffers, fuse, pinned=False):
        known = {}  # buffer id -> ("input", i) or ("state", j); the first one of a shared buffer
        for kind, buffers in (("input", input_buffers), ("state", state_buffers)):
            for i, buf in enumerate(buffers):
                if buf is not None and buf.id not in known:
                    known[buf.id] = (kind, i)
        slot_of = {}  # buffer id -> its "new" slot, for the buffer's current lifetime
        self.new_count = 0
        # ("alloc", k, nbytes) ("release", k) ("run", kernel, slots, meta, groups, meta_fn)
        # ("upload", slot, bytes), and after fusion ("fused", kernel, slots, meta, groups, written)
        self.steps = []
        live = set()

        def slot(buf):
            s = slot_of.get(buf.id) or known.get(buf.id)
            if s is None and recorder.runtime.owned_name(buf):
                s = ("owned", recorder.runtime.owned_name(buf))
            if s is None:
                raise GraphBreak("it uses a tensor that is neither an argument nor state it reaches (a module's, "
                                 "an optimizer's, or one in its closure or the globals it names)")
            return s

        for event in recorder.events:
            kind = event[0]
            if kind == "alloc":
                k = self.new_count
                self.new_count += 1
                slot_of[event[1].id] = ("new", k)
                live.add(k)
                self.steps.append(("alloc", k, event[1].nbytes))
            elif kind == "release":
                s = slot_of.pop(event[1].id, None)
                if s is not None:
                    live.discard(s[1])
                    self.steps.append(("release", s[1]))
            elif kind == "run":
                _, kernel, buffers, meta, groups, meta_fn = event
                self.steps.append(("run", kernel, [slot(b) for b in buffers], meta, groups, meta_fn))
            else:
                self.steps.append(("upload", slot(event[1]), event[2]))
        self.live_new = live  # "new" slots still allocated at the end (results, new state)
        if fuse:
            self.steps = fusion.fuse(self.steps, live, recorder.runtime.limits["max_storage_buffers_per_shader_stage"])
        # the meta words a replay hands the runtime as they are (run() would convert a list each time)
        self.steps = [(*step[:3], array.array("I", step[3]), *step[4:]) if step[0] == "fused" or
                      step[0] == "run" and step[5] is None else step for step in self.steps]
        self.slot_of = slot_of  # at the end of the call: buffer id -> "new" slot
        self.known = known
        self.pinned = self._pin() if pinned else None
        self.pinned_buffers = None
        self.encoded = None  # a pinned program's kernels as one submission (_Encoded), made at its first replay
        # what a replay walks: a pinned program's own intermediates are neither allocated nor released
        self.replayed_steps = self.steps if self.pinned is None else [
            step for step in self.steps if step[0] not in ("alloc", "release") or step[1] not in self.pinned[0]]
        self.encodable = self.pinned is not None and _Encoded.applies(self.replayed_steps, self.pinned[0])

    def _pin(self):
        """The "new" slots the call allocates and releases itself (its intermediates), each mapped to one
        of the program's own buffers, reused as the recorded call reused the allocator's: (slot -> index,
        the buffers' sizes). A pinned program keeps those buffers between replays (torch's CUDA graphs keep
        a private memory pool), so each replay binds the same buffers and the driver's bind groups for
        them are made once; the results' slots are still allocated anew at each replay. A slot that
        receives an upload has a buffer of its own (shared with no other slot: _Encoded writes it before
        the replay's kernels)."""
        from .webgpu import bucket
        index, sizes, free = {}, [], {}
        uploaded = {step[1][1] for step in self.steps if step[0] == "upload" and step[1][0] == "new"}
        for step in self.steps:
            if step[0] == "alloc" and step[1] not in self.live_new:
                size = bucket(step[2])
                spare = free.get(size) if step[1] not in uploaded else None
                index[step[1]] = spare.pop() if spare else len(sizes)
                if index[step[1]] == len(sizes):
                    sizes.append(size)
            elif step[0] == "release" and step[1] in index and step[1] not in uploaded:
                free.setdefault(sizes[index[step[1]]], []).append(index[step[1]])
        return index, sizes

    def slot(self, buf):
        """The slot of a buffer at the end of the recorded call, or None."""
        return self.slot_of.get(buf.id) or self.known.get(buf.id)

    def replay(self, runtime, input_buffers, state_buffers):
        """Runs the kernels again with these buffers bound; returns the "new" slots' buffers (those
        still allocated at the end: the results' and new state's; the others went back to the cache
        where the recorded call released them)."""
        if self.pinned is None:
            new = [None] * self.new_count
        else:  # the intermediates' slots are bound to the program's own buffers
            if self.pinned_buffers is None or self.pinned_buffers[0] is not runtime:
                pinned, sizes = self.pinned
                buffers = [runtime.alloc(size) for size in sizes]
                bound_new = [None] * self.new_count  # the "new" slots with those filled in, copied at each replay
                for k, i in pinned.items():
                    bound_new[k] = buffers[i]
                self.pinned_buffers = runtime, bound_new
                self.encoded = None
            new = self.pinned_buffers[1].copy()
        bound = {"input": input_buffers, "state": state_buffers, "new": new, "owned": _Owned(runtime)}
        alloc, release, run, upload = runtime.alloc, runtime.release, runtime.run, runtime.upload
        if self.pinned is not None:
            if not runtime.hooks and self.encodable:
                encoded = self.encoded
                if encoded is None or not encoded.holds(state_buffers):
                    if encoded is not None:
                        runtime.release(encoded.arena)
                    encoded = self.encoded = _Encoded(self, runtime, bound)
                encoded.submit(runtime, bound)
                return new
        for step in self.replayed_steps:
            kind = step[0]
            if kind == "run":
                _, kernel, slots, meta, groups, meta_fn = step
                run(kernel, [bound[k][i] for k, i in slots], meta if meta_fn is None else meta_fn(), groups)
            elif kind == "fused":
                _, kernel, slots, meta, groups, written = step
                buffers = [bound[k][i] for k, i in slots]
                run(kernel, buffers, meta, groups)
                for i in written:  # run() marks buffers[0] as written; the others too
                    buffers[i].value_range = None
            elif kind == "alloc":
                new[step[1]] = alloc(step[2])
            elif kind == "release":
                release(new[step[1]])
            else:
                k, i = step[1]
                upload(bound[k][i], step[2])
        return new


class _Encoded:
    """A pinned program's kernels as the command words and meta of one submission, made once: a replay
    allocates and releases its results' buffers, writes the ids of the buffers that differ between
    replays (its inputs', its results') into the words, and hands them to the driver in one call, with
    no Python per kernel (the runtime's run and record: ~10 us per kernel, most of a 300-kernel decode
    step's time). Each kernel's meta is written once, into a buffer of the program's own (the kernels'
    meta does not change: a program with meta_fn steps replays step by step). Its uploads (constants
    the ops made) go before the kernels, each into an intermediate's buffer no other slot shares
    (Program._pin); a program uploading into anything else replays step by step. The state's buffers
    are bound as they were when it was made (holds() tells whether they still are)."""

    @staticmethod
    def applies(steps, pinned):
        return all(step[1][0] == "new" and step[1][1] in pinned if step[0] == "upload" else
                   step[0] != "run" or step[5] is None for step in steps)

    def __init__(self, program, runtime, bound):
        from . import webgpu
        self.state = [b.id if b is not None else None for b in bound["state"]]
        self.held = None
        steps = [step for step in program.replayed_steps if step[0] in ("run", "fused")]
        words, meta, patches, written = [], array.array("I"), [], set()
        align = runtime._align
        arena = runtime.alloc(4 * sum(len(s[3]) + -len(s[3]) % align for s in steps) + webgpu.META_WINDOW)
        self.kernels = 0
        for step in steps:
            _, kernel, slots, words_of_meta, groups = step[:5]
            if groups.__class__ is int:
                groups = webgpu.grid(groups)
            if not (groups[0] and groups[1] and groups[2]):
                continue
            if len(words_of_meta) > webgpu.META_WINDOW_WORDS:
                raise RuntimeError(f"webtorch: tensor rank too large for one kernel ({len(words_of_meta)} meta words)")
            words += [runtime.pipeline(kernel), 4 * len(meta), *groups, len(slots) + 1, arena.id]
            for kind, i in slots:
                if kind == "input" or kind == "new" and i not in program.pinned[0]:
                    patches.append((len(words), kind, i))  # written at each replay
                    words.append(0)
                else:
                    words.append(bound[kind][i].id)
            meta += words_of_meta
            meta += array.array("I", bytes(4 * (-len(words_of_meta) % align)))
            written.update(s for s in [slots[0]] + [slots[i] for i in (step[5] if step[0] == "fused" else ())]
                           if s[0] != "new" or s[1] not in program.pinned[0])  # (no op sees an intermediate)
            self.kernels += 1
        runtime.upload(arena, meta)
        self.arena, self.words, self.patches, self.written = arena, array.array("I", words), patches, sorted(written)
        # the allocations and releases a replay makes itself (its results'), in order
        self.lifetimes = [step for step in program.replayed_steps if step[0] in ("alloc", "release")]
        self.uploads = [(bound["new"][step[1][1]].id, step[2]) for step in program.replayed_steps
                        if step[0] == "upload" and len(step[2])]

    def holds(self, state_buffers):
        """Whether state_buffers (the list of the last replay that held, or an equal one) are those bound."""
        if state_buffers is self.held:
            return True
        if [b.id if b is not None else None for b in state_buffers] != self.state:
            return False
        self.held = state_buffers  # a caller passing the same list again (compile's fast guard) is not compared
        return True

    def submit(self, runtime, bound):
        new = bound["new"]
        for step in self.lifetimes:
            if step[0] == "alloc":
                new[step[1]] = runtime.alloc(step[2])
            else:
                runtime.release(new[step[1]])
        words = self.words
        for at, kind, i in self.patches:
            words[at] = bound[kind][i].id
        for kind, i in self.written:  # what run() does for each kernel's written buffers
            bound[kind][i].value_range = None
        runtime.flush()  # eager kernels before these
        for bid, data in self.uploads:
            runtime.driver.write_buffer(bid, 0, data)
        runtime._submit(self.arena.id, b"", words)
        runtime._flushed_kernels += self.kernels


class _Owned:
    """A replay's "owned" slots: the replaying runtime's own buffers, by name (webgpu.OWNED)."""

    def __init__(self, runtime):
        self.runtime = runtime

    def __getitem__(self, name):
        return self.runtime.owned(name)

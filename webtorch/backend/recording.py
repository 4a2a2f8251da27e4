"""A recorded kernel sequence, replayed with other buffers bound (webtorch.compile's program).

While a Recorder is installed on the runtime, the runtime's calls that ops make (alloc, release,
run, upload) are seen as events; a readback, or a kernel that draws random numbers, ends the
recording as unreplayable. The events become a Program: kernels whose buffers are named by slot,
"input" i (rebound to the i-th input buffer on each replay), "new" k (a buffer allocated on each
replay) or "external" (a buffer of a tensor the caller guards, bound as recorded).
"""


class GraphBreak(Exception):
    """What made a recorded call unreplayable."""


class Recorder:
    """Installed on a runtime for one eager call; holds its events in order."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.events = []  # ("alloc", buf) ("release", buf) ("run", kernel, buffers, meta, groups) ("upload", buf, bytes)
        self.broken = None  # the reason the call cannot be replayed, if any
        self._saved = {}

    def __enter__(self):
        rt = self.runtime
        events = self.events
        for name in ("alloc", "release", "run", "upload", "download", "download_async", "synchronize"):
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
            events.append(("run", kernel, list(buffers), list(meta), groups))
            inner["run"](kernel, buffers, meta, groups)

        def upload(buf, data):
            events.append(("upload", buf, bytes(data)))
            inner["upload"](buf, data)

        def reads(name):
            def read(*args, **kwargs):
                self.stop("it reads a value back from the GPU (.item(), .tolist(), .cpu(), print, bool(tensor))")
                return inner[name](*args, **kwargs)
            return read

        hooks = {"alloc": alloc, "release": release, "run": run, "upload": upload}
        for name in self._saved:
            setattr(rt, name, hooks.get(name) or reads(name))
        return self

    def __exit__(self, *exc):
        rt = self.runtime
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

    inputs: the input buffers' ids of the recorded call, in input order; externals: buffer id ->
    the object that keeps it alive (a guarded tensor's storage). Raises GraphBreak when a kernel
    uses a buffer that is neither.
    """

    def __init__(self, recorder, input_buffers, external_storages):
        inputs = {buf.id: i for i, buf in reversed(list(enumerate(input_buffers)))}
        slot_of = {}  # buffer id -> its slot, for the buffer's current lifetime
        self.new_sizes = []  # per "new" slot: bytes
        self.steps = []  # ("run", kernel, slots, meta, groups) ("upload", slot, bytes)
        live = {}  # "new" slot -> still allocated at the end
        self.externals = {}

        def slot(buf):
            s = slot_of.get(buf.id)
            if s is not None:
                return s
            if buf.id in inputs:
                return ("input", inputs[buf.id])
            storage = external_storages.get(buf.id)
            if storage is None:
                raise GraphBreak("it uses a tensor that is neither an argument nor state of the compiled module "
                                 "or function (a global or closure tensor that webtorch cannot guard)")
            self.externals[buf.id] = storage
            return ("external", buf)

        for event in recorder.events:
            kind = event[0]
            if kind == "alloc":
                k = len(self.new_sizes)
                self.new_sizes.append(event[1].nbytes)
                slot_of[event[1].id] = ("new", k)
                live[k] = True
            elif kind == "release":
                s = slot_of.pop(event[1].id, None)
                if s is not None:
                    live[s[1]] = False
            elif kind == "run":
                _, kernel, buffers, meta, groups = event
                self.steps.append(("run", kernel, [slot(b) for b in buffers], meta, groups))
            else:
                self.steps.append(("upload", slot(event[1]), event[2]))
        self.live_new = {k for k, alive in live.items() if alive}
        self.slot_of = slot_of  # at the end of the call: buffer id -> slot, for the outputs

    def replay(self, runtime, input_buffers):
        """Records the kernels again with the inputs' buffers bound; returns the "new" slots' buffers
        that stay allocated (the outputs'); the others go back to the cache (reuse is in queue order)."""
        new = [runtime.alloc(n) for n in self.new_sizes]

        def bind(s):
            kind, ref = s
            return input_buffers[ref] if kind == "input" else new[ref] if kind == "new" else ref

        run, upload = runtime.run, runtime.upload
        for step in self.steps:
            if step[0] == "run":
                run(step[1], [bind(s) for s in step[2]], step[3], step[4])
            else:
                upload(bind(step[1]), step[2])
        for k, buf in enumerate(new):
            if k not in self.live_new:
                runtime.release(buf)
        return new

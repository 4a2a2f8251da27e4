"""The native driver: WebGPU through wgpu-py on CPython (Mesa lavapipe, Vulkan GPUs).

It has the same small interface as the browser driver (driver_browser.py / browser_driver.js):
buffers and pipelines are integer ids, `submit` encodes a batch of recorded kernels into one
compute pass and sends it. Bind groups are cached per (pipeline, buffers).
"""
import functools

from ..errors import DeviceLostError, OutOfMemoryError, ValidationError, WebGPUUnavailableError


def _translated(method):
    """A driver method whose wgpu errors become webtorch's (NativeDriver._translate), and which raises
    DeviceLostError at once on a device found lost."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        if self.lost:
            raise self._lost_error()
        try:
            return method(self, *args, **kwargs)
        except (self._wgpu.GPUValidationError, self._wgpu.GPUOutOfMemoryError) as e:
            raise self._translate(e) from e
    return call


class NativeDriver:
    # naga (wgpu-native 0.32) refuses WGSL's `enable subgroups;`: the device feature enables them
    WGSL_ENABLES_SUBGROUPS = False
    name = "native"
    # why the device was lost, once a call found it lost (device.destroy(), a driver reset): every later
    # call raises DeviceLostError, and webtorch.backend.webgpu.runtime() starts a new device
    lost = None

    def __init__(self):
        try:
            import wgpu
        except ImportError as e:
            raise WebGPUUnavailableError(
                "webtorch on CPython needs wgpu-py for the 'webgpu' device: pip install 'webtorch[native]'"
            ) from e
        self._wgpu = wgpu
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
        if adapter is None:
            raise WebGPUUnavailableError(
                "wgpu found no GPU adapter; install a Vulkan driver (e.g. apt-get install mesa-vulkan-drivers)"
            )
        names = ("max_storage_buffer_binding_size", "max_buffer_size", "max_storage_buffers_per_shader_stage",
                 "max_compute_workgroup_storage_size", "max_compute_invocations_per_workgroup")
        self.limits = {n: adapter.limits[n.replace("_", "-")] for n in names}
        # Every feature a kernel can use is requested whenever the adapter offers it (as the browser
        # driver does); wgpu-native spells WebGPU's "subgroups" as "subgroup".
        features = [f for f in ("shader-f16", "subgroup", "timestamp-query") if f in adapter.features]
        self.device = adapter.request_device_sync(required_features=features,
                                                  required_limits={n.replace("_", "-"): self.limits[n] for n in names})
        self.limits["min_storage_buffer_offset_alignment"] = adapter.limits["min-storage-buffer-offset-alignment"]
        info = adapter.info
        self.adapter_info = {k: info.get(k, "") for k in ("vendor", "architecture", "device", "description")}
        # wgpu-py 0.32 names the subgroup sizes "stackgroup_*"; wgpu-native offers no subgroup matrices
        self.adapter_info.update(subgroup_min_size=info.get("stackgroup_min_size", 0),
                                 subgroup_max_size=info.get("stackgroup_max_size", 0), subgroup_matrix_configs=[])
        self.features = sorted({"subgroup": "subgroups"}.get(f, f) for f in self.device.features if f in features)
        self._buffers = {}
        self._pipelines = []
        self._bind_groups = {}
        self._groups_of_buffer = {}  # buffer id -> keys of the live bind groups naming it
        self._staging = {}  # size -> mappable buffers for readbacks (read_buffer)
        self._next_id = 1
        self.submit_count = 0
        self._timings = []  # submit_timed's timestamp buffers, until read_timings
        # True: submit's compute pass writes its begin and end timestamps too (read_timings), the GPU time
        # of a batch of kernels in one pass (bench/decode_kernels_replay.py; needs "timestamp-query")
        self.time_passes = False
        self._direct = _direct_encoding()

    def _translate(self, e):
        text = str(e)
        if "device is lost" in text.lower():
            self.lost = text.strip().splitlines()[-1].strip()
            return self._lost_error()
        if isinstance(e, self._wgpu.GPUOutOfMemoryError):
            return OutOfMemoryError(f"WebGPU out of memory: {e}. Free tensors or call webtorch.webgpu.empty_cache()")
        return ValidationError(f"WebGPU validation error: {e}")

    def _lost_error(self):
        return DeviceLostError(f"the WebGPU device was lost ({self.lost}); its tensors are gone. webtorch starts a "
                               "new device at the next use: create new tensors (load the weights again).")

    def _guard(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (self._wgpu.GPUValidationError, self._wgpu.GPUOutOfMemoryError) as e:
            raise self._translate(e) from e

    @_translated
    def create_buffer(self, nbytes, checked=False):
        """checked: wgpu-native reports an allocation failure during the call, so always."""
        usage = self._wgpu.BufferUsage
        buf = self._guard(self.device.create_buffer, size=nbytes,
                          usage=usage.STORAGE | usage.COPY_SRC | usage.COPY_DST)
        bid = self._next_id
        self._next_id += 1
        self._buffers[bid] = buf
        return bid

    def destroy_buffer(self, bid):
        buf = self._buffers.pop(bid)
        # by the buffer's own set of keys (a scan of every cached group per destroyed buffer made emptying
        # a cache of thousands of buffers cost minutes), each key dropped from its other buffers' sets too
        # (the meta arena and long-lived weights are in every key: their sets would only grow)
        for key in self._groups_of_buffer.pop(bid, ()):
            del self._bind_groups[key]
            for other in key[1]:
                if other != bid:
                    self._groups_of_buffer[other].discard(key)
        buf.destroy()

    @_translated
    def write_buffer(self, bid, offset, data):
        self._guard(self.device.queue.write_buffer, self._buffers[bid], offset, data)

    @_translated
    def read_buffer(self, bid, offset, dest, batch=None):
        """GPU bytes into dest, a writable Python buffer of the size to read (a multiple of 4); batch:
        pending kernels (submit's arguments), sent in the same submission as the copy. The copy goes
        into a mappable staging buffer kept per size (powers of two) for the next readback, and comes
        out of its mapped range into dest: one host copy."""
        dest = memoryview(dest).cast("B")
        nbytes = dest.nbytes
        size = max(16, 1 << (nbytes - 1).bit_length())
        free = self._staging.setdefault(size, [])
        usage = self._wgpu.BufferUsage
        staging = free.pop() if free else self._guard(self.device.create_buffer, size=size,
                                                      usage=usage.MAP_READ | usage.COPY_DST)

        def copy(encoder):
            encoder.copy_buffer_to_buffer(self._buffers[bid], offset, staging, 0, nbytes)
        try:
            self.submit(*(batch or (None, b"", b"")), then=copy)
            self._guard(self._map_read, staging, nbytes)
            dest[:] = staging.read_mapped(0, nbytes, copy=False)
            staging.unmap()
        finally:
            free.append(staging)

    @staticmethod
    def _map_read(staging, nbytes):
        """Maps a staging buffer's first nbytes for reading, waiting. "READ_NOSYNC", as wgpu-py's own
        queue.read_buffer maps: "READ" first submits an empty command buffer (for buffers nothing wrote
        yet), one more submission per readback (~40% of a 4-byte one's time on lavapipe)."""
        staging.map_async("READ_NOSYNC", 0, nbytes).sync_wait()

    async def read_buffer_async(self, bid, offset, dest):
        self.read_buffer(bid, offset, dest)

    @_translated
    def create_pipeline(self, code, access, meta_window):
        """access: 'w' or 'r' per binding after the meta binding (binding 0)."""
        wgpu = self._wgpu
        entries = [{"binding": 0, "visibility": wgpu.ShaderStage.COMPUTE,
                    "buffer": {"type": "read-only-storage", "has_dynamic_offset": True, "min_binding_size": 0}}]
        for i, a in enumerate(access):
            kind = "storage" if a == "w" else "read-only-storage"
            entries.append({"binding": i + 1, "visibility": wgpu.ShaderStage.COMPUTE, "buffer": {"type": kind}})
        layout = self.device.create_bind_group_layout(entries=entries)
        module = self._guard(_shader_module, self.device, code)
        pipeline = self._guard(
            self.device.create_compute_pipeline,
            layout=self.device.create_pipeline_layout(bind_group_layouts=[layout]),
            compute={"module": module, "entry_point": "main"},
        )
        self._pipelines.append((pipeline, layout, meta_window, access))
        return len(self._pipelines) - 1

    @_translated
    def submit(self, arena, meta, commands, then=None):
        """Writes meta (bytes) into the arena buffer, then encodes a batch of kernels into one compute
        pass and submits it. commands: the runtime's words, per kernel: pipeline, meta offset,
        workgroups x, y, z, buffer count, buffer ids. then(encoder), if given, records more commands
        into the same submission (a readback's copy)."""
        if len(meta):
            self.write_buffer(arena, 0, meta)
        if not len(commands) and then is None:
            return
        encoder = self.device.create_command_encoder()
        if len(commands):
            timed = self._timestamps(1) if self.time_passes else None
            compute_pass = encoder.begin_compute_pass(timestamp_writes=timed and timed[2](0))
            if self._direct is None:
                for kernel in self._kernels(commands):
                    self._dispatch(compute_pass, *kernel)
            else:
                self._encode_direct(compute_pass, commands)
            compute_pass.end()
            if timed:
                encoder.resolve_query_set(timed[0], 0, 2, timed[1], 0)
        if then is not None:
            then(encoder)
        self._guard(self.device.queue.submit, [encoder.finish()])
        self.submit_count += 1

    @_translated
    def submit_timed(self, arena, meta, commands):
        """submit, with each kernel in a compute pass of its own that writes its begin and end
        timestamps (webtorch.profiler; needs "timestamp-query"). read_timings returns them."""
        self.write_buffer(arena, 0, meta)
        kernels = list(self._kernels(commands))
        if not kernels:
            return
        queries, stamps, writes = self._timestamps(len(kernels))
        encoder = self.device.create_command_encoder()
        for k, kernel in enumerate(kernels):
            compute_pass = encoder.begin_compute_pass(timestamp_writes=writes(k))
            self._dispatch(compute_pass, *kernel)
            compute_pass.end()
        encoder.resolve_query_set(queries, 0, 2 * len(kernels), stamps, 0)
        self._guard(self.device.queue.submit, [encoder.finish()])
        self.submit_count += 1

    def _timestamps(self, passes):
        """A query set and its resolve buffer for the begin and end timestamps of `passes` compute passes
        (read_timings reads them), and pass k's timestamp_writes: writes(k)."""
        wgpu = self._wgpu
        queries = self.device.create_query_set(type=wgpu.QueryType.timestamp, count=2 * passes)
        stamps = self.device.create_buffer(size=16 * passes,
                                           usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC)
        self._timings.append((queries, stamps))
        return queries, stamps, lambda k: {"query_set": queries, "beginning_of_pass_write_index": 2 * k,
                                           "end_of_pass_write_index": 2 * k + 1}

    @_translated
    def read_timings(self):
        """The timestamps (ns) of the kernels submit_timed sent since the last call: begin, end per kernel."""
        out = []
        for queries, stamps in self._timings:
            raw = self._guard(self.device.queue.read_buffer, stamps)
            out += memoryview(raw).cast("Q").tolist()
            stamps.destroy()
            queries.destroy()
        self._timings.clear()
        return out

    @staticmethod
    def _kernels(commands):
        """(pipeline, meta offset, workgroups, buffer ids) per kernel of the runtime's command words."""
        i = 0
        while i < len(commands):
            pid, meta_offset, gx, gy, gz, n_ids = commands[i:i + 6]
            yield pid, meta_offset, (gx, gy, gz), tuple(commands[i + 6:i + 6 + n_ids])
            i += 6 + n_ids

    def _dispatch(self, compute_pass, pid, meta_offset, groups, bids):
        compute_pass.set_pipeline(self._pipelines[pid][0])
        compute_pass.set_bind_group(0, self._bind_group(pid, bids), [meta_offset])
        compute_pass.dispatch_workgroups(*groups)

    def _encode_direct(self, compute_pass, commands):
        """_dispatch for each kernel of the command words, through wgpu-native's C functions (wgpu-py's
        methods around them cost about as much again per call: a decode step encodes ~300 kernels), the
        pipeline set only when it changes. The bind groups stay alive in their cache while the pass is
        encoded (only destroy_buffer drops them)."""
        set_pipeline, set_bind_group, dispatch, offsets = self._direct
        handle = compute_pass._internal
        pipelines, groups = self._pipelines, self._bind_groups
        last = None
        i, n = 0, len(commands)
        while i < n:
            pid, offsets[0], gx, gy, gz, count = commands[i:i + 6]
            bids = tuple(commands[i + 6:i + 6 + count])
            i += 6 + count
            if pid != last:
                set_pipeline(handle, pipelines[pid][0]._internal)
                last = pid
            group = groups.get((pid, bids)) or self._bind_group(pid, bids)
            set_bind_group(handle, 0, group._internal, 1, offsets)
            dispatch(handle, gx, gy, gz)

    def _bind_group(self, pid, bids):
        """Cached per (pipeline, buffers); bids[0] is the meta arena, bound with a dynamic offset."""
        group = self._bind_groups.get((pid, bids))
        if group is None:
            _, layout, window, access = self._pipelines[pid]
            # WebGPU (Dawn, in every browser) refuses a buffer bound writable and at another binding of the
            # same dispatch; wgpu-native lets it pass, so the host suite checks what the browser would
            for i, b in enumerate(bids[1:]):
                if access[i] == "w" and bids[1:].count(b) > 1:
                    raise ValidationError(f"Writable storage buffer binding aliasing: buffer {b} is bound at binding "
                                          f"{i + 1} (writable) and at another binding of the same dispatch")
            entries = [{"binding": 0, "resource": {"buffer": self._buffers[bids[0]], "offset": 0, "size": window}}]
            entries += [{"binding": i, "resource": {"buffer": self._buffers[b], "offset": 0,
                                                    "size": self._buffers[b].size}}
                        for i, b in enumerate(bids[1:], 1)]
            group = self._bind_groups[(pid, bids)] = self._guard(self.device.create_bind_group, layout=layout,
                                                                 entries=entries)
            for b in bids:
                self._groups_of_buffer.setdefault(b, set()).add((pid, bids))
        return group


def _shader_module(device, code):
    """A WGSL module with bounds checks but without the loop bounding naga adds to every loop by default
    (a counter that ends a loop after 2^64 iterations): on NVIDIA's Vulkan driver it kept the matmul
    kernels' loops from being unrolled, 1.5 against 35 TFLOP/s at 4096^3 on an H200
    (bench/results/h200-native/README.md). Browsers' WebGPU (Dawn's Tint) adds no such bound either.
    wgpu-native's wgpuDeviceCreateShaderModuleTrusted, as wgpu-py 0.32 binds it; where this wgpu-py has
    no such function, its create_shader_module."""
    try:
        from wgpu.backends.wgpu_native._api import GPUShaderModule, ffi, lib, libf, new_struct_p, to_c_string_view
        create = libf.wgpuDeviceCreateShaderModuleTrusted  # (libf: errors reported during the call raise)
        checks = lib.WGPUShaderRuntimeChecks_BoundsChecks
    except (ImportError, AttributeError):
        return device.create_shader_module(code=code)
    source = new_struct_p("WGPUShaderSourceWGSL *", code=to_c_string_view(code))
    source[0].chain.next = ffi.NULL
    source[0].chain.sType = lib.WGPUSType_ShaderSourceWGSL
    descriptor = new_struct_p("WGPUShaderModuleDescriptor *", nextInChain=ffi.cast("WGPUChainedStruct *", source),
                              label=to_c_string_view(""))
    handle = create(device._internal, descriptor, checks)
    if handle == ffi.NULL:
        raise RuntimeError("Shader module creation failed")
    return GPUShaderModule("", handle, device)


def _direct_encoding():
    """wgpu-native's compute pass functions as wgpu-py 0.32 binds them (set pipeline, set bind group,
    dispatch, and a one-word dynamic offsets array), or None where this wgpu-py lays them out otherwise
    (then its methods encode). The library's own functions, not wgpu-py's wrappers of them that turn
    errors reported during the call into exceptions (~2 us per call): wgpu-core keeps a pass's errors
    until the pass ends, and ending it goes through wgpu-py's wrapper."""
    try:
        from wgpu.backends.wgpu_native._api import ffi, lib
        return (lib.wgpuComputePassEncoderSetPipeline, lib.wgpuComputePassEncoderSetBindGroup,
                lib.wgpuComputePassEncoderDispatchWorkgroups, ffi.new("uint32_t[1]"))
    except (ImportError, AttributeError):
        return None

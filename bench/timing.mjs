// The timing rule every framework's figures follow (webtorch's in bench/workloads.py mirrors it):
// one warm-up call, the GPU heated, warm_ms more of warm-up calls, then `rounds` timed rounds of `reps`
// calls each closed by the framework's own wait for its device; the figure is the median round, with
// the fastest and slowest.
//
// Why the heat: the H200's driver idles the GPU at 345 MHz within ~2 s of no work and raises it to
// 1980 MHz only under sustained load (nvidia-smi, sampled every 50-100 ms during bench runs, showed the
// clock up 0.2-0.5 s after load began, and the models section at 345-675 MHz throughout: its bursts
// between Python work never raised it). A figure taken after a pause (a model built in Python, a
// section switch) ran 3-5x slower than the same work a moment later: the compiled encoder layer 3.9 ms
// against 0.84 (its kernels' GPU time by timestamps: 3.1-3.5 ms after a 2 s pause, 0.82 under load),
// onnxruntime-web's 3-4.9 ms against 1.3. Bringing the GPU to its full clock
// (gpuHeater, on a device of its own) before each figure's rounds puts every framework at the same clock.

const now = () => performance.now();

// A kernel that keeps every multiprocessor busy: a dependent chain of vector FMAs per invocation (its
// result stored only if it hits a value it never reaches, so that it is not optimised out).
const HEAT = `
@group(0) @binding(0) var<storage, read_write> sink: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  var a = vec4<f32>(f32(g.x)) * 1e-7;
  for (var i = 0u; i < 4096u; i = i + 1u) { a = fma(a, vec4<f32>(0.9999), vec4<f32>(1e-4)); }
  if (a.x == 12345.0) { sink[0] = a.y + a.z + a.w; }
}`;

// An async function that keeps the GPU (an adapter of gpu, on a device of its own) busy until it runs at
// full clock: for ms milliseconds the first time, later until one batch of the heat kernel runs within
// 15% of the fastest batch seen (at most ms): ~2 ms where the clock is up already. ms 0 (software
// adapters: no clocks to raise) makes it return at once. heat.stats: how often the GPU was found slow.
export function gpuHeater(gpu, ms) {
  let ready = null;
  let best = Infinity;  // the fastest batch (ms): the GPU at full clock
  const stats = {calls: 0, ms_total: 0, slow_starts: 0};
  const setUp = async () => {
    const adapter = await gpu.requestAdapter({powerPreference: "high-performance"});
    const device = await adapter.requestDevice();
    const sink = device.createBuffer({size: 16, usage: GPUBufferUsage.STORAGE});
    const pipeline = device.createComputePipeline({layout: "auto",
      compute: {module: device.createShaderModule({code: HEAT}), entryPoint: "main"}});
    const group = device.createBindGroup({layout: pipeline.getBindGroupLayout(0),
                                          entries: [{binding: 0, resource: {buffer: sink}}]});
    return {device, pipeline, group};
  };
  const heat = async () => {
    if (!ms) return;
    const {device, pipeline, group} = await (ready ??= setUp());
    const first = best === Infinity;
    const t0 = now();
    for (let batch = 0; ; batch++) {
      const b0 = now();
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      for (let i = 0; i < 8; i++) pass.dispatchWorkgroups(1024);
      pass.end();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      const took = now() - b0;
      if (batch === 0 && !first && took > 1.5 * best) stats.slow_starts++;
      best = Math.min(best, took);
      if (now() - t0 >= ms || !first && took <= 1.15 * best) break;
    }
    stats.calls++;
    stats.ms_total += now() - t0;
  };
  heat.stats = stats;
  return heat;
}

// The median of per-round ms, with the fastest and slowest round.
export function summary(rounds) {
  const s = [...rounds].sort((a, b) => a - b), n = s.length;
  return {ms: n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2, ms_min: s[0], ms_max: s[n - 1]};
}

// run(reps): reps calls closed by the framework's wait for its device (async). cfg: heat (gpuHeater's
// function), warm_ms, rounds. After the first call (pipelines compiled, buffers allocated) and the
// heat, single calls repeat for warm_ms: what the framework itself warms (JIT tiers, caches, the host's
// share of a call) is warmed too (H200: the compiled encoder layer measured 1.18 ms with the heat alone,
// 0.86-0.93 with 300 ms of warm-up calls; its GPU time is 0.82).
// Returns summary()'s {ms, ms_min, ms_max}, ms per call.
export async function timeRounds(cfg, run, reps) {
  await run(1);
  await cfg.heat();
  for (const t0 = now(); now() - t0 < (cfg.warm_ms || 0);) await run(1);
  const rounds = [];
  for (let r = 0; r < (cfg.rounds || 3); r++) {
    const t0 = now();
    await run(reps);
    rounds.push((now() - t0) / reps);
  }
  return summary(rounds);
}

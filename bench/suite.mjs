// One benchmark run: webtorch (Python in Pyodide), the raw-WGSL baseline and the peers, in turn,
// on the same adapter. Shared by bench/bench.html (Chromium) and bench/dawn.mjs (Node + Dawn).
import {runRaw} from "./raw.mjs";
import {runTfjs, runOrt} from "./peers.mjs";
import {gpuHeater} from "./timing.mjs";

export const CONFIGS = {
  // SwiftShader runs fp32 at about 1 GFLOP/s: small sizes.
  chromium: {
    matmul: [[128, 128, 128], [256, 256, 256], [512, 512, 512], [512, 384, 1536]],
    matmul_flop_budget: 1.5e9, max_reps: 10,
    // bench/timing.mjs: timed rounds per figure (the median is reported); no heat (a CPU adapter)
    rounds: 3, heat_ms: 0, warm_ms: 0,
    chain_sizes: [1024, 16384], chain_ops: 1000,
    bw_sizes: [1 << 20, 4 << 20], bw_byte_budget: 4e8, softmax_row: 1024,
    complex_sizes: [1 << 20], fft_log2: 16, dft_log2: 10,
    transfer_mb: [1, 16], transfer_reps: 3, item_reps: 50,
    encoder: [2, 16, 64, 4], train_batch: 16, model_reps: 2, conv: [2, 16, 28, 28, 16],
    // MiniLM at 32x128 tokens is 64x the work of 4x16 (minutes per forward on SwiftShader): 8x32 instead
    minilm: [[4, 16], [8, 32]], minilm_reps: 1, minilm_rounds: 1,
    notes: ["MiniLM-L6 runs at 4x16 and 8x32 tokens here, not 32x128 (64x the work of 4x16: minutes per forward)"],
    gpt_size: "small", gpt_steps: 10, sample_chars: 100, search_subset: 36,  // the pages' software-adapter sizes
    build: {"encoder block 384/6/1536": [1, 384, 6, 1536, 0]},
    f16_matmul: [256], f16_add: 1 << 18, f16_mlp: [64, 64, 256],
    // bench/hf_decode.py's tiny model (2 layers, 64 wide) stands in for the GPU's Llama shape
    decode: [{model: "tiny", quant: "int4", contexts: [16], new: 16}],
  },
  dawn: {
    matmul: [[128, 128, 128], [256, 256, 256], [512, 512, 512], [1024, 1024, 1024], [2048, 2048, 2048],
             [4096, 4096, 4096], [4096, 384, 1536], [4096, 1536, 384]],
    matmul_flop_budget: 4e12, max_reps: 30,
    // bench/timing.mjs: timed rounds per figure (the median is reported), each after the GPU is brought
    // to its full clock (the H200 reaches it after 0.2-0.5 s of load, and drops it after ~2 s idle) and
    // 300 ms of warm-up calls
    rounds: 3, heat_ms: 500, warm_ms: 300,
    chain_sizes: [1024, 65536], chain_ops: 1000,
    bw_sizes: [1 << 20, 16 << 20, 64 << 20], bw_f16_sizes: [16 << 20, 64 << 20], bw_byte_budget: 2e10,
    complex_sizes: [16 << 20], fft_log2: 20, dft_log2: 13,
    softmax_row: 1024,
    transfer_mb: [1, 16, 64], transfer_reps: 5, item_reps: 100,
    encoder: [32, 128, 384, 6], train_batch: 64, model_reps: 10, conv: [32, 64, 56, 56, 64],
    minilm: [[4, 16], [32, 128]], minilm_reps: 10, minilm_rounds: 3,
    gpt_size: "large", gpt_steps: 100, sample_chars: 300, search_subset: 1,
    build: {"encoder block 384/6/1536": [1, 384, 6, 1536, 0], "GPT-2-small shape (12 x 768, 50257 vocab)": [12, 768, 12, 3072, 50257]},
    f16_matmul: [4096], f16_add: 16 << 20, f16_mlp: [4096, 1024, 4096],
    // issue 27's target shapes (bench/hf_decode.py's SHAPES), int4 group 64: Llama-3.2-1B's decode at 128 and
    // 2048 tokens of context and its prefill of 512 tokens, Qwen2.5-0.5B's decode at 128
    decode: [{model: "llama-3.2-1b", quant: "int4", contexts: [128, 512, 2048], new: 64},
             {model: "qwen2.5-0.5b", quant: "int4", contexts: [128], new: 64}],
  },
};
// headless Chromium on the GPU machine (scripts/gpu_chrome_run.sh): Node + Dawn's sizes and heat, so that the
// two columns compare (Chrome adds the GPU process's IPC to every submit and readback)
CONFIGS["chromium-gpu"] = CONFIGS.dawn;
// the same with Dawn's vulkan_enable_f16_on_nvidia toggle on the command line (shader-f16: native float16)
CONFIGS["chromium-gpu-f16"] = CONFIGS.dawn;

// pyodide: a loaded Pyodide; wheel: the webtorch wheel's bytes; workloads: bench/workloads.py's text;
// modules: {name: text} written to /tmp, where workloads import or read them (bench/modules.json);
// peers: {tf, ort} (either may be missing, or an Error explaining why); weights: all-MiniLM-L6-v2's
// model.safetensors as an ArrayBuffer (fetched, or a same-shaped stand-in on Node), for the weights section
// (Python imports it from the JS module bench_inputs) and onnxruntime-web's MiniLM.
// only: the frameworks to run (all when absent); sections: the workloads to run (bench/workloads.py's names, which
// onnxruntime-web's share; all when absent).
export async function runSuite({target, pyodide, wheel, workloads, modules = {}, peers = {}, weights,
                                log = console.log, only, sections}) {
  const cfg = {...CONFIGS[target]};
  // the runners' config: cfg and the GPU heater (bench/timing.mjs), one for all frameworks
  const heat = gpuHeater(globalThis.navigator.gpu, cfg.heat_ms);
  const run = {...cfg, heat};
  const want = (name) => !only || only.includes(name);
  const out = {target, config: cfg, started: new Date().toISOString(), frameworks: {}};
  const section = async (name, fn) => {
    if (!want(name)) return;
    log(`bench: ${name} ...`);
    const t0 = performance.now();
    try {
      out.frameworks[name] = await fn();
    } catch (e) {
      out.frameworks[name] = {error: String(e && e.stack || e)};
    }
    log(`bench: ${name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  await section("webtorch", async () => {
    pyodide.unpackArchive(wheel, "wheel");
    pyodide.FS.writeFile("/tmp/bench_workloads.py", workloads);
    for (const [name, source] of Object.entries(modules)) pyodide.FS.writeFile(`/tmp/${name}`, source);
    pyodide.registerJsModule("bench_inputs", {weights, heat});
    const wanted = JSON.stringify(sections || ["matmul", "chain", "bandwidth", "transfer", "item", "models", "minilm", "weights", "demos", "build"]);
    const json = await pyodide.runPythonAsync(`
import sys, json
sys.path.insert(0, "/tmp")
import bench_workloads
cfg = json.loads(${JSON.stringify(JSON.stringify(cfg))})
cfg["sections"] = json.loads(${JSON.stringify(wanted)})
json.dumps(await bench_workloads.run(cfg))`);
    return JSON.parse(json);
  });
  await section("raw", () => runRaw(run));
  for (const [name, runner, lib] of [["tfjs", runTfjs, peers.tf], ["ort", runOrt, peers.ort]]) {
    if (!want(name)) continue;
    if (!lib || lib instanceof Error) {
      out.frameworks[name] = {error: lib ? String(lib) : "not loaded"};
      continue;
    }
    await section(name, () => runner(run, lib, {weights, sections}));
  }
  out.heat = heat.stats;
  out.finished = new Date().toISOString();
  return out;
}

// all-MiniLM-L6-v2's model.safetensors (91 MB) is over the device's carry limit: a stand-in with the same
// tensors, shapes and size, random values (load and forward times do not depend on them). Node + Dawn and
// Chrome on the GPU machine (bench.html, where the server has no .cache/minilm) use it.
export function minilmStandIn(layers = 6, d = 384, inner = 1536) {
  const tensors = [["embeddings.position_ids", "I64", [1, 512]],
    ...[["word", 30522], ["position", 512], ["token_type", 2]].map(([n, v]) => [`embeddings.${n}_embeddings.weight`, "F32", [v, d]]),
    ["embeddings.LayerNorm.weight", "F32", [d]], ["embeddings.LayerNorm.bias", "F32", [d]]];
  for (let l = 0; l < layers; l++) {
    for (const [name, o, i] of [["attention.self.query", d, d], ["attention.self.key", d, d], ["attention.self.value", d, d],
                                ["attention.output.dense", d, d], ["intermediate.dense", inner, d], ["output.dense", d, inner]]) {
      tensors.push([`encoder.layer.${l}.${name}.weight`, "F32", [o, i]], [`encoder.layer.${l}.${name}.bias`, "F32", [o]]);
    }
    for (const name of ["attention.output.LayerNorm", "output.LayerNorm"]) {
      tensors.push([`encoder.layer.${l}.${name}.weight`, "F32", [d]], [`encoder.layer.${l}.${name}.bias`, "F32", [d]]);
    }
  }
  tensors.push(["pooler.dense.weight", "F32", [d, d]], ["pooler.dense.bias", "F32", [d]]);
  const header = {__metadata__: {format: "pt"}};
  let end = 0;
  for (const [name, dtype, shape] of tensors) {
    const begin = end;
    end += shape.reduce((a, b) => a * b, 1) * (dtype === "I64" ? 8 : 4);
    header[name] = {dtype, shape, data_offsets: [begin, end]};
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const out = new ArrayBuffer(8 + json.length + end);
  new DataView(out).setBigUint64(0, BigInt(json.length), true);
  new Uint8Array(out, 8, json.length).set(new TextEncoder().encode(json));
  const data = 8 + json.length;
  for (const [name, dtype, shape] of tensors) {
    const [begin, stop] = header[name].data_offsets;
    if (dtype === "I64") {
      new BigInt64Array(out, data + begin, shape[1]).set(Array.from({length: shape[1]}, (_, i) => BigInt(i)));
    } else {
      const values = new Float32Array(out, data + begin, (stop - begin) / 4);
      const ones = name.endsWith("LayerNorm.weight");
      for (let i = 0; i < values.length; i++) values[i] = ones ? 1 : (Math.random() - 0.5) * 0.04;
    }
  }
  return out;
}

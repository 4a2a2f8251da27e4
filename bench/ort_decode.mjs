// onnxruntime-web (WebGPU EP) decoding bench/ort_decode.py's graph in Node + Dawn on the GPU machine: the
// peer of bench/hf_decode.py (same shape, prompt and token counts; greedy). KV cache on the GPU: the
// presents come back as GPU buffers (preferredOutputLocation "gpu-buffer", as transformers.js keeps them)
// and go in as the next step's pasts. Tokens: read back every token (readback 1: each step's input_ids
// come from the host), or every 8 (the next_token GPU tensor fed straight back as input_ids, 8 read at
// once), as hf_decode.py's greedy and --readback-every 8. Decode tokens/s counts the tokens after the
// first burst, as there. Not a test.
//   source .gpurun/env.sh; node bench/ort_decode.mjs ORT_DIR MODEL_DIR OUT.json [context] [new]
// ORT_DIR: onnxruntime-web's packed WebGPU build (bench/run.py pack_dawn's "ort" folder); MODEL_DIR:
// model.onnx, manifest.json (bench/ort_decode.py graph) and weights.bin (bench/ort_decode.py weights).
// ORT_LOG=0 logs onnxruntime's session creation verbosely (its node placements); ORT_RUNS=name,...: those runs
// only (greedy, greedy_readback_every_8, greedy_logits_to_host); ORT_EXTRA: session config entries (below).
import fs from "fs";
import path from "path";
import {DAWN_FLAGS, installDawn, loadOrt} from "./dawn_gpu.mjs";

const [ortDir, modelDir, outPath, contextArg = "128", newArg = "64"] = process.argv.slice(2);
const context = +contextArg, newTokens = +newArg;
const ep = process.env.ORT_EP || "webgpu";  // "wasm": the CPU, to check this script where no GPU is
if (ep === "webgpu") installDawn();
const ort = await loadOrt(ortDir);
ort.env.wasm.numThreads = 1;
const logLevel = process.env.ORT_LOG === undefined ? 2 : +process.env.ORT_LOG;
ort.env.logLevel = ["verbose", "info", "warning", "error", "fatal"][logLevel];
const manifest = JSON.parse(fs.readFileSync(path.join(modelDir, "manifest.json"), "utf8"));
const {layers, kv_heads: kvHeads, head_dim: headDim, vocab} = manifest.config;
const presents = [];
for (let i = 0; i < layers; i++) presents.push(`present.${i}.key`, `present.${i}.value`);

const res = {model: manifest.model, block: manifest.block, context, new: newTokens, ort: ort.env.versions,
             dawn_flags: DAWN_FLAGS, node: process.version};
let t = performance.now();
const weights = fs.readFileSync(path.join(modelDir, "weights.bin"));
res.read_weights_s = (performance.now() - t) / 1e3;
res.weight_file_bytes = weights.length;
// ORT_EXTRA: JSON of session config entries, e.g. {"ep": {"webgpuexecutionprovider": {"validationMode": "disabled"}}}
const extra = process.env.ORT_EXTRA ? JSON.parse(process.env.ORT_EXTRA) : undefined;
// ORT_OUTPUTS: where the outputs land: gpu (all GPU buffers, the default), mixed (next_token and logits
// on the host, the presents on the GPU: transformers.js's choice), cpu (all on the host)
const outputs = process.env.ORT_OUTPUTS || "gpu";
res.outputs = outputs;
res.extra = extra;
const open = async (file) => {
  const start = performance.now();
  const session = await ort.InferenceSession.create(fs.readFileSync(path.join(modelDir, file)), {
    executionProviders: [ep], externalData: [{path: "weights.bin", data: weights}], logSeverityLevel: logLevel, extra,
    preferredOutputLocation: ep !== "webgpu" ? undefined : Object.fromEntries([
      ...["next_token", "logits"].map((n) => [n, outputs === "gpu" ? "gpu-buffer" : "cpu"]),
      ...presents.map((n) => [n, outputs === "cpu" ? "cpu" : "gpu-buffer"])]),
  });
  res[`session_create_s_${file}`] = (performance.now() - start) / 1e3;
  if (ep === "webgpu" && !res.adapter) {  // ORT's device exists once a session does
    const device = await ort.env.webgpu.device, info = device.adapterInfo;
    res.adapter = info ? {vendor: info.vendor, architecture: info.architecture, device: info.device,
                          description: info.description} : null;
    res.device_features = [...device.features];
  }
  return session;
};

const i64 = (values, dims) => new ort.Tensor("int64", BigInt64Array.from(values, BigInt), dims);
const i32 = (values, dims) => new ort.Tensor("int32", Int32Array.from(values), dims);
const halfToFloat = (h) => {
  const e = (h >> 10) & 31, m = h & 1023, sign = h >> 15 ? -1 : 1;
  return e === 31 ? (m ? NaN : sign * Infinity) : sign * (e ? 2 ** (e - 15) * (1 + m / 1024) : 2 ** -14 * (m / 1024));
};
// float16 data as numbers: onnxruntime-web hands out a Float16Array where the runtime has one (Node 26, recent
// Chrome), the bits in a Uint16Array elsewhere (Node 20)
const halfValues = (data) => data instanceof Uint16Array ? Array.from(data, halfToFloat) : Array.from(data);
// The host's greedy pick from float16 logits (as transformers.js reads them back): the index of the largest.
const argmaxHalf = (data) => {
  const values = halfValues(data);
  let best = 0;
  for (let j = 1; j < values.length; j++) if (values[j] > values[best]) best = j;
  return best;
};
const quiet = {logSeverityLevel: 2};
const step = (session, ids, past, total) => {
  const feeds = {input_ids: ids, seqlens_k: i32([total - 1], [1]), total_sequence_length: i32([total], [])};
  for (let i = 0; i < layers; i++) {
    feeds[`past_key_values.${i}.key`] = past[2 * i];
    feeds[`past_key_values.${i}.value`] = past[2 * i + 1];
  }
  return session.run(feeds, [session.outputNames.includes("next_token") ? "next_token" : "logits", ...presents], quiet);
};
const emptyPast = () => presents.map(() => new ort.Tensor("float16", new Uint16Array(0), [1, kvHeads, 0, headDim]));

// One generation: prefill of the prompt, then newTokens - 1 decode steps; tokens read back `every` at a time
// (the argmax graph), or the logits read back each step and the token picked on the host (the logits graph).
// Returns the tokens, the host's time at which each token was known, and the milliseconds spent awaiting
// session.run and the readbacks.
async function generate(session, prompt, every) {
  const host = !session.outputNames.includes("next_token");
  let past = emptyPast();
  const tokens = [], marks = [], made = [];
  let ids = i64(prompt, [1, context]), running = 0, reading = 0;
  for (let n = 0; n < newTokens; n++) {
    let s = performance.now();
    const out = await step(session, ids, past, context + n);
    running += performance.now() - s;
    if (n > 0) for (const p of past) p.dispose();
    past = presents.map((name) => out[name]);
    made.push(out[host ? "logits" : "next_token"]);
    if (made.length - tokens.length === every || n === newTokens - 1) {
      s = performance.now();
      const values = [];
      for (const tok of made.slice(tokens.length)) {  // the last waits for all
        const data = await tok.getData();
        values.push(host ? argmaxHalf(data) : Number(data[0]));
      }
      const now = performance.now();
      reading += now - s;
      for (const v of values) { tokens.push(v); marks.push(now); }
    }
    ids = every === 1 ? i64([tokens[n]], [1, 1]) : out.next_token;  // every > 1: the GPU tensor, fed straight back
  }
  for (const tensor of [...past, ...made]) tensor.dispose();
  return {tokens, marks, run_ms_per_step: running / newTokens, read_ms_per_step: reading / newTokens};
}

const prompt = Array.from({length: context}, (_, j) => (j * 7919 + 1) % vocab);  // any ids: the weights are random
const runs = [["greedy", "model.onnx", 1], ["greedy_readback_every_8", "model.onnx", 8],
              ["greedy_logits_to_host", "model_logits.onnx", 1]].filter(([name]) => !process.env.ORT_RUNS ||
                                                                        process.env.ORT_RUNS.split(",").includes(name));
let session = null, file = null, warm = null;
for (const [name, graphFile, every] of runs) {
  if (graphFile !== file) {
    if (session) await session.release();
    session = await open(graphFile);
    file = graphFile;
    t = performance.now();
    warm = await generate(session, prompt, 1);  // compiles every kernel (prefill and decode shapes)
    res[`warmup_s_${file}`] = (performance.now() - t) / 1e3;
  }
  const start = performance.now();
  const {tokens, marks, ...host} = await generate(session, prompt, every);
  const decode = (marks[marks.length - 1] - marks[0]) / (marks.length - every);
  res[name] = {graph: file, first_token_ms: marks[0] - start, decode_ms_per_token: decode,
               decode_tokens_per_s: 1e3 / decode, ...host,
               same_tokens_as_warmup: tokens.every((v, j) => v === warm.tokens[j]), tokens: tokens.slice(0, 8)};
  if (name === "greedy") {
    // prefill alone: the prompt's one pass (its token read back); and the first logits' range (finite?)
    const times = [];
    for (let r = 0; r < 3; r++) {
      const s = performance.now();
      const out = await step(session, i64(prompt, [1, context]), emptyPast(), context);
      await out.next_token.getData();
      times.push(performance.now() - s);
      for (const tensor of Object.values(out)) tensor.dispose();
    }
    res.prefill_tokens_per_s = context / (Math.min(...times) / 1e3);
  }
  if (name === "greedy_logits_to_host") {
    const out = await step(session, i64(prompt, [1, context]), emptyPast(), context);
    const logits = halfValues(await out.logits.getData());
    res.first_logits = {min: logits.reduce((a, b) => Math.min(a, b)), max: logits.reduce((a, b) => Math.max(a, b)),
                        nan: logits.filter(Number.isNaN).length, argmax: argmaxHalf(await out.logits.getData()),
                        first: logits.slice(0, 4)};
    for (const tensor of Object.values(out)) tensor.dispose();
  }
}
await session.release();
console.log(JSON.stringify(res, null, 1));
fs.writeFileSync(outPath, JSON.stringify(res, null, 1));
process.exit(0);

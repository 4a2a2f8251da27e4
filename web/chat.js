// The chat page (web/chat.html): webtorch in a worker runs web/examples/chat.py: load(url) streams an
// HF-layout folder to the GPU (progress events "load"), generate(...) streams tokens (events "token").
import {Webtorch} from "./webtorch-client.js";
import {print, setStatus, showRows, startPage, trimTraceback} from "./common.js";

const $ = (id) => document.getElementById(id);
const page = {wt: null, loaded: null, generations: [], running: false, loads: 0};
window.chatDemo = page;  // for the browser tests and the curious

const mb = (x) => (x / 2 ** 20).toFixed(2);

function onProgress(p) {  // Pyodide and webtorch start-up, then each shard's bytes as they arrive
  if (p.name && p.name.endsWith(".safetensors") && p.total) {
    setStatus(`Downloading ${p.name}: ${mb(p.loaded)} / ${mb(p.total)} MB`, 100 * p.loaded / p.total);
  } else if (!page.loaded) {
    setStatus(p.status === "ready" ? "Starting…" : `${p.label || p.name}…`, p.progress);
  }
}

function onEvent(kind, data) {
  const d = JSON.parse(data);
  if (kind === "load" && d.status === "weights") {
    $("load-progress").value = 100 * d.loaded / d.total;
    setStatus(`Weights to the GPU: ${mb(d.loaded)} MB (${d.file})`, 100 * d.loaded / d.total);
  }
  if (kind === "token") {
    $("output").textContent += d.text;
    $("speed").textContent = `${d.n} tokens, ${d.tokens_per_s.toFixed(1)} tokens/s`;
  }
}

async function call(code) {
  try {
    return JSON.parse(await page.wt.run(code));
  } catch (e) {
    print(trimTraceback(e.message), "err");
    setStatus("Error (see the console)", 100);
    return null;
  }
}

async function load() {
  if (page.running) return;
  page.running = true;
  $("load").disabled = $("generate").disabled = true;
  $("load-progress").value = 0;
  const url = new URL($("model-url").value, location.href).href;
  const info = await call(`load(${JSON.stringify(url)}, ${JSON.stringify($("quantize").value)})`);
  page.running = false;
  $("load").disabled = false;
  if (!info) return;
  page.loaded = info;
  page.loads += 1;
  $("load-progress").value = 100;
  showRows($("model-info"), [["model", `${info.model_type}, ${info.layers} layers, ${info.hidden} wide, ` +
                               `vocabulary ${info.vocab}`], ["parameters", info.parameters.toLocaleString()],
                             ["weights", `${mb(info.bytes)} MB on the GPU from ${info.shards} shard(s)` +
                              (info.quantized_linears ? `, ${info.quantized_linears} linear layers ${info.quantize}` : "")],
                             ["load time", `${info.seconds.toFixed(2)} s`]]);
  $("generate").disabled = false;
  setStatus("Ready", 100);
}

async function generate() {
  if (page.running || !page.loaded) return;
  page.running = true;
  $("generate").disabled = $("load").disabled = true;
  $("stop").disabled = false;
  $("output").textContent = $("prompt").value;
  const args = {prompt: $("prompt").value, max_new_tokens: Number($("max-tokens").value),
                temperature: Number($("temperature").value), top_k: Number($("top-k").value) || null,
                top_p: Number($("top-p").value) || null};
  const result = await call(`generate(**json.loads(${JSON.stringify(JSON.stringify(args))}))`);
  if (result) {
    page.generations.push(result);
    $("speed").textContent = `${result.tokens} tokens in ${result.seconds.toFixed(2)} s: ` +
      `${result.tokens_per_s.toFixed(1)} tokens/s after the first, which took ${(1000 * result.first_token_s).toFixed(0)} ms ` +
      `(prompt of ${result.prompt_tokens} tokens)`;
  }
  page.running = false;
  $("generate").disabled = $("load").disabled = false;
  $("stop").disabled = true;
}

async function main(adapter) {
  const info = adapter.info || {};
  print(`adapter: ${info.vendor || ""} ${info.device || info.description || ""}`);
  page.wt = new Webtorch({onProgress, onEvent, onStdout: (line) => print(line), onStderr: (line) => print(line, "err")});
  await page.wt.start();
  await page.wt.run(await (await fetch("examples/chat.py")).text());
  $("load").onclick = load;
  $("generate").onclick = generate;
  $("stop").onclick = () => page.wt.cancel();
  document.body.dataset.state = "ready";
  await load();
}

startPage(main);

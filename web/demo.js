// The demo page (web/index.html): WebGPU check, webtorch in a worker, editor + console,
// and the digits classifier with a live plot and a prediction view.
import {Webtorch, CancelledError} from "./webtorch-client.js";
import {blankCanvas, print, setStatus, showRows, startPage, trimTraceback} from "./common.js";

const $ = (id) => document.getElementById(id);
const N_TRAIN = 1437;
const N_SHOWN = 40;
const demo = {
  wt: null, examples: {}, digits: null, metrics: [], predictions: null,
  runs: 0, running: false, progress: [], adapter: null,
};
window.webtorchDemo = demo; // for the browser tests and the curious

// ---------------- status line and console ----------------
const STAGES = {pyodide: [0, 45], packages: [45, 70], gpu: [70, 75], kernels: [75, 100], webtorch: [100, 100]};


function onProgress(p) {
  demo.progress.push(p);
  const [lo, hi] = STAGES[p.name] || [0, 100];
  const frac = p.total ? p.loaded / p.total : 0;
  const count = p.total > 1 && p.status !== "done" ? ` (${p.loaded}/${p.total})` : "";
  const what = p.status === "ready" ? "Ready" : `${p.label}${count}…`;
  setStatus(what, lo + (hi - lo) * frac);
}


function showAdapter(adapter, fromWorker) {
  const info = adapter.info || {};
  const rows = [
    ["vendor", info.vendor || fromWorker?.vendor],
    ["architecture", info.architecture || fromWorker?.architecture],
    ["device", info.device || info.description || fromWorker?.description],
    ["fallback (software) adapter", String(!!info.isFallbackAdapter)],
    ["max buffer", `${(adapter.limits.maxBufferSize / 2 ** 20).toFixed(0)} MiB`],
    ["shader-f16", String(adapter.features.has("shader-f16"))],
    ["Pyodide", demo.wt?.version || "…"],
    ["cross-origin isolated (Stop can interrupt)", String(self.crossOriginIsolated)],
  ];
  showRows($("adapter"), rows);
}

// ---------------- plot ----------------
function drawPlot() {
  const {g, W, H} = blankCanvas($("plot"));
  const m = {l: 46, r: 46, t: 26, b: 30};
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const pts = demo.metrics;
  const epochs = Math.max(pts.length ? pts[0].epochs : 1, 1);
  const maxLoss = Math.max(0.5, ...pts.map((p) => p.loss)) * 1.05;
  const x = (e) => m.l + (pw * e) / epochs;
  const yl = (v) => m.t + ph * (1 - v / maxLoss);
  const ya = (v) => m.t + ph * (1 - v);
  // grid + axes
  g.strokeStyle = "#e6e9ee";
  g.lineWidth = 1;
  g.font = "11px system-ui, sans-serif";
  g.fillStyle = "#5b6673";
  for (let i = 0; i <= 4; i++) {
    const yy = m.t + (ph * i) / 4;
    g.beginPath(); g.moveTo(m.l, yy); g.lineTo(m.l + pw, yy); g.stroke();
    g.textAlign = "right"; g.fillText((maxLoss * (1 - i / 4)).toFixed(2), m.l - 6, yy + 4);
    g.textAlign = "left"; g.fillText(`${100 - 25 * i}%`, m.l + pw + 6, yy + 4);
  }
  g.textAlign = "center";
  const step = Math.max(1, Math.ceil(epochs / 10));
  for (let e = 0; e <= epochs; e += step) g.fillText(String(e), x(e), H - m.b + 16);
  g.fillText("epoch", m.l + pw / 2, H - 3);
  g.strokeStyle = "#9aa4b0";
  g.strokeRect(m.l, m.t, pw, ph);
  // series
  const series = [["loss", "#ee4c2c", yl, "train loss"], ["test_acc", "#2f6fde", ya, "test accuracy"]];
  series.forEach(([key, color, y, label], k) => {
    g.strokeStyle = color;
    g.fillStyle = color;
    g.lineWidth = 2;
    g.beginPath();
    pts.forEach((p, i) => (i ? g.lineTo(x(p.epoch), y(p[key])) : g.moveTo(x(p.epoch), y(p[key]))));
    g.stroke();
    for (const p of pts) { g.beginPath(); g.arc(x(p.epoch), y(p[key]), 2.5, 0, 2 * Math.PI); g.fill(); }
    g.textAlign = "left";
    g.fillRect(m.l + k * 130, 9, 14, 3);  // legend, above the plot area
    g.fillText(label, m.l + 18 + k * 130, 14);
  });
  if (!pts.length) {
    g.fillStyle = "#9aa4b0";
    g.textAlign = "center";
    g.fillText("press Train: loss and accuracy appear here after every epoch", m.l + pw / 2, m.t + ph / 2);
  }
}

// ---------------- digits ----------------
async function loadDigits() {
  const r = await fetch("data/digits.bin");
  if (!r.ok) throw new Error(`data/digits.bin: HTTP ${r.status}`);
  demo.digits = new Uint8Array(await r.arrayBuffer());
}

function drawDigit(canvas, index) {
  const n = demo.digits.length / 65;
  const img = new ImageData(8, 8);
  for (let i = 0; i < 64; i++) {
    const v = 255 - Math.round((demo.digits[index * 64 + i] * 255) / 16);
    img.data.set([v, v, v, 255], i * 4);
  }
  canvas.width = 8;
  canvas.height = 8;
  canvas.getContext("2d").putImageData(img, 0, 0);
  return demo.digits[n * 64 + index]; // the label
}

function drawPredictions(p) {
  const box = $("predictions");
  box.replaceChildren();
  let right = 0;
  for (let i = 0; i < N_SHOWN; i++) {
    const cell = document.createElement("div");
    cell.className = "digit";
    const canvas = document.createElement("canvas");
    const label = drawDigit(canvas, N_TRAIN + i);
    const text = document.createElement("div");
    text.className = "label";
    if (p) {
      const ok = p.pred[i] === label;
      right += ok;
      cell.classList.add(ok ? "right" : "wrong");
      text.textContent = `${p.pred[i]} ${Math.round(100 * p.conf[i])}%`;
      cell.title = `label ${label}, predicted ${p.pred[i]} with p=${p.conf[i].toFixed(3)}`;
    } else {
      text.textContent = "?";
      cell.title = `label ${label}`;
    }
    cell.append(canvas, text);
    box.append(cell);
  }
  $("pred-summary").textContent = p ? `(${right}/${N_SHOWN} predicted right; red: wrong)` : "(train to see predictions)";
}

function onEvent(kind, data) {
  if (kind === "metrics") {
    const m = JSON.parse(data);
    if (m.epoch === 1) demo.metrics = [];
    demo.metrics.push(m);
    drawPlot();
    $("train-status").textContent =
      `epoch ${m.epoch}/${m.epochs}: loss ${m.loss.toFixed(3)}, test accuracy ${(100 * m.test_acc).toFixed(1)}% (${m.seconds.toFixed(1)} s)`;
  } else if (kind === "step" && demo.metrics.length === 0) {
    $("train-status").textContent = `step ${data} (the first epoch also compiles the kernels)`;
  } else if (kind === "predictions") {
    demo.predictions = JSON.parse(data);
    drawPredictions(demo.predictions);
  }
}

// ---------------- running code ----------------
function setRunning(running) {
  demo.running = running;
  document.body.dataset.running = running ? "1" : "0";
  $("run").disabled = running;
  $("profile").disabled = running;
  $("train").disabled = running;
  $("stop").disabled = !running;
}

function show(value) {
  if (value === undefined || value === null) return;
  print(typeof value === "string" ? value : JSON.stringify(value), "info");
}

async function runCode(code, what) {
  if (demo.running) return;
  setRunning(true);
  print(`>>> ${what}`, "info");
  const t0 = performance.now();
  try {
    show(await demo.wt.run(code));
    print(`(${what}: ${((performance.now() - t0) / 1000).toFixed(2)} s)`, "info");
  } catch (e) {
    if (e instanceof CancelledError) print("stopped: the worker was restarted (Python state is reset)", "err");
    else print(trimTraceback(e.message), "err");
  } finally {
    demo.runs += 1;
    setRunning(false);
  }
}

async function train() {
  const epochs = Math.max(1, Math.min(100, parseInt($("epochs").value, 10) || 15));
  demo.metrics = [];
  demo.predictions = null;
  drawPlot();
  drawPredictions(null);
  await runCode(`EPOCHS = ${epochs}\n` + demo.examples["train_digits.py"], `training ${epochs} epochs`);
}

async function stop() {
  print("stopping…", "info");
  const how = await demo.wt.cancel();
  if (how === "restarted") setStatus("Ready (worker restarted)", 100);
}

// The editor's code under webtorch.profiler (top-level await allowed, as in Run), then its table:
// ops and kernels by GPU time, with host time, GPU memory and calls.
function profiled(code) {
  return `from pyodide.code import eval_code_async as _eval_code_async
from webtorch.profiler import profile as _profile
with _profile(profile_memory=True) as _prof:
    await _eval_code_async(${JSON.stringify(code)}, globals())
print(_prof.key_averages().table(sort_by="self_gpu_time_total", row_limit=15))`;
}

function selectExample() {
  $("code").value = demo.examples[$("examples").value] || "";
}

// ---------------- start ----------------
async function main(adapter) {
  demo.adapter = adapter;
  showAdapter(adapter);
  if (typeof WebAssembly.Suspending !== "function") $("jspi-warning").hidden = false;

  const names = [...$("examples").options].map((o) => o.value);
  const files = Promise.all(names.map(async (n) => {
    const r = await fetch(`examples/${n}`);
    demo.examples[n] = await r.text();
  })).then(() => selectExample());
  const digits = loadDigits().then(() => drawPredictions(null));

  $("examples").onchange = selectExample;
  $("run").onclick = () => runCode($("code").value, `run ${$("examples").selectedOptions[0].text}`);
  $("profile").onclick = () => runCode(profiled($("code").value), `profile ${$("examples").selectedOptions[0].text}`);
  $("train").onclick = train;
  $("stop").onclick = stop;
  $("clear").onclick = () => $("console").replaceChildren();
  $("code").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); $("run").click(); }
    if (ev.key === "Tab") { ev.preventDefault(); document.execCommand("insertText", false, "    "); }
  });

  demo.wt = new Webtorch({
    onProgress,
    onStdout: (line) => print(line),
    onStderr: (line) => print(line, "err"),
    onEvent,
  });
  await demo.wt.start();
  await Promise.all([files, digits]);
  showAdapter(adapter, demo.wt.adapter);
  if (demo.wt.gpuError) print(demo.wt.gpuError, "err");
  print(`webtorch ready: Pyodide ${demo.wt.version}, ${demo.wt.adapter?.description || demo.wt.adapter?.vendor || "WebGPU"}. ` +
        "Pick an example and press Run (Ctrl+Enter), or Train.", "info");
  document.body.dataset.state = "ready";
  setRunning(false);
}

drawPlot();
startPage(main);

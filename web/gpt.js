// "Train a GPT in your tab" (web/gpt.html): webtorch in a worker runs web/examples/train_gpt.py, then
// train(), sample_text(), save_checkpoint() and load_checkpoint() on the model it keeps.
import {Webtorch, CancelledError} from "./webtorch-client.js";
import {blankCanvas, isSoftwareAdapter, print, setStatus, showRows, startPage, trimTraceback} from "./common.js";

const $ = (id) => document.getElementById(id);
const gpt = {wt: null, losses: [], samples: [], running: false, size: null, lastCheckpoint: null, ready: false};
window.gptDemo = gpt;  // for the browser tests and the curious

function showAdapter(adapter) {
  const info = adapter.info || {};
  const software = isSoftwareAdapter(adapter);
  showRows($("adapter"), [["vendor", info.vendor], ["architecture", info.architecture],
                          ["device", info.device || info.description], ["software adapter", String(software)],
                          ["shader-f16", String(adapter.features.has("shader-f16"))]]);
  $("software-note").hidden = !software;
  return software;
}

function drawPlot() {
  const {g, W, H} = blankCanvas($("plot"));
  const m = {l: 46, r: 14, t: 14, b: 30}, pw = W - m.l - m.r, ph = H - m.t - m.b;
  const pts = gpt.losses;
  const maxStep = Math.max(10, ...pts.map((p) => p.step));
  const maxLoss = Math.max(1, ...pts.map((p) => p.loss)) * 1.05;
  const x = (s) => m.l + (pw * s) / maxStep, y = (v) => m.t + ph * (1 - v / maxLoss);
  g.strokeStyle = "#e6e9ee";
  g.fillStyle = "#5b6673";
  g.font = "11px system-ui, sans-serif";
  for (let i = 0; i <= 4; i++) {
    const yy = m.t + (ph * i) / 4;
    g.beginPath(); g.moveTo(m.l, yy); g.lineTo(m.l + pw, yy); g.stroke();
    g.textAlign = "right"; g.fillText((maxLoss * (1 - i / 4)).toFixed(2), m.l - 6, yy + 4);
  }
  g.textAlign = "center";
  g.fillText("step", m.l + pw / 2, H - 4);
  for (let i = 0; i <= 4; i++) g.fillText(String(Math.round((maxStep * i) / 4)), x((maxStep * i) / 4), H - 16);
  g.strokeStyle = "#9aa4b0";
  g.strokeRect(m.l, m.t, pw, ph);
  g.strokeStyle = "#ee4c2c";
  g.lineWidth = 2;
  g.beginPath();
  pts.forEach((p, i) => (i ? g.lineTo(x(p.step), y(p.loss)) : g.moveTo(x(p.step), y(p.loss))));
  g.stroke();
  const val = pts.filter((p) => p.val_loss != null);
  g.fillStyle = "#2f6fde";
  for (const p of val) { g.beginPath(); g.arc(x(p.step), y(p.val_loss), 3.5, 0, 2 * Math.PI); g.fill(); }
  g.textAlign = "left";
  g.fillStyle = "#ee4c2c"; g.fillText("train loss", m.l + 8, m.t + 14);
  g.fillStyle = "#2f6fde"; g.fillText("● validation loss (at the start and after each run)", m.l + 80, m.t + 14);
}

function addSample(step, text) {
  gpt.samples.push({step, text});
  const head = document.createElement("span");
  head.className = "step";
  head.textContent = `— step ${step} —\n`;
  $("samples").append(head, document.createTextNode(text + "\n\n"));
  $("samples").scrollTop = $("samples").scrollHeight;
}

function onEvent(kind, data) {
  if (kind === "loss") {
    const p = JSON.parse(data);
    gpt.losses.push(p);
    drawPlot();
    $("train-status").textContent = `step ${p.step}: loss ${p.loss.toFixed(3)}` +
      (p.val_loss != null ? `, validation ${p.val_loss.toFixed(3)}` : "") +
      ` · ${p.steps_per_s.toFixed(1)} steps/s, ${Math.round(p.tokens_per_s)} tokens/s`;
  } else if (kind === "sample") {
    const s = JSON.parse(data);
    addSample(s.step, s.text);
  }
}

function setRunning(running) {
  gpt.running = running;
  document.body.dataset.running = running ? "1" : "0";
  for (const id of ["train", "sample", "save", "load"]) $(id).disabled = running || !gpt.ready;
  $("stop").disabled = !running;
}

async function call(code, what) {
  if (gpt.running) return undefined;
  setRunning(true);
  const t0 = performance.now();
  try {
    const value = await gpt.wt.run(code);
    print(`${what}: ${((performance.now() - t0) / 1000).toFixed(2)} s`, "info");
    return value;
  } catch (e) {
    if (e instanceof CancelledError) {
      print("stopped: the worker was restarted, so the model starts again from scratch", "err");
      await setUp();
    } else if (/KeyboardInterrupt/.test(e.message)) {
      print(`${what}: stopped (press Train to resume)`, "info");
    } else {
      print(trimTraceback(e.message), "err");
    }
    return undefined;
  } finally {
    setRunning(false);
  }
}

const train = () => call(`train(${Math.max(1, parseInt($("steps").value, 10) || 200)})`, "training");

async function sample() {
  const t = parseFloat($("temperature").value) || 0.8, k = parseInt($("top-k").value, 10) || 20;
  const text = await call(`sample_text(300, temperature=${t}, top_k=${k})`, "sampling 300 characters");
  if (text !== undefined) addSample(gpt.losses.length ? gpt.losses[gpt.losses.length - 1].step : 0, text);
}

async function save() {
  const bytes = await call("save_checkpoint()", "checkpoint");
  if (!bytes) return;
  gpt.lastCheckpoint = bytes;
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([bytes], {type: "application/octet-stream"}));
  a.download = "gpt-macbeth.pt";
  a.click();
  print(`saved gpt-macbeth.pt (${(bytes.length / 1024).toFixed(0)} KiB): torch.load("gpt-macbeth.pt") reads it`, "info");
}

async function load(file) {
  await gpt.wt.putFile("/tmp/checkpoint.pt", new Uint8Array(await file.arrayBuffer()));
  const step = await call('load_checkpoint("/tmp/checkpoint.pt")', `loading ${file.name}`);
  if (step !== undefined) print(`loaded ${file.name}: step ${step}`, "info");
}

async function setUp() {
  gpt.ready = false;
  const [model, script] = await Promise.all(["gpt.py", "train_gpt.py"].map(async (f) => (await fetch(`examples/${f}`)).text()));
  await gpt.wt.putFile("/home/pyodide/gpt.py", model);
  setStatus("Building the model…", 95);
  await gpt.wt.run(`SIZE = ${JSON.stringify(gpt.size)}\n` + script);
  gpt.ready = true;
  setRunning(false);
}

async function main(adapter) {
  gpt.size = showAdapter(adapter) ? "small" : "large";
  gpt.wt = new Webtorch({
    onProgress: (p) => setStatus(p.status === "ready" ? "Ready" : `${p.label}…`, p.progress),
    onStdout: (line) => print(line),
    onStderr: (line) => print(line, "err"),
    onEvent,
  });
  await gpt.wt.start();
  await setUp();
  $("train").onclick = train;
  $("stop").onclick = () => gpt.wt.cancel();
  $("sample").onclick = sample;
  $("save").onclick = save;
  $("load").onchange = (ev) => ev.target.files[0] && load(ev.target.files[0]);
  setStatus("Ready", 100);
  document.body.dataset.state = "ready";
}

drawPlot();
startPage(main);

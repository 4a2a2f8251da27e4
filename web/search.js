// Semantic search (web/search.html): webtorch in a worker runs web/examples/semantic_search.py (weights
// with a progress bar, then the corpus embedded on the GPU), then search(query) for each query.
import {Webtorch} from "./webtorch-client.js";
import {isSoftwareAdapter, print, setStatus, showRows, startPage, trimTraceback} from "./common.js";

const $ = (id) => document.getElementById(id);
const page = {wt: null, results: [], ready: false, running: false, software: false};
window.searchDemo = page;  // for the browser tests and the curious

function onProgress(p) {  // Pyodide and webtorch start-up, then the weights' download (bytes)
  const mb = (x) => (x / 2 ** 20).toFixed(1);
  if (p.name === "model.safetensors" && p.total) setStatus(`Downloading the weights: ${mb(p.loaded)} / ${mb(p.total)} MB`, 100 * p.loaded / p.total);
  else setStatus(p.status === "ready" ? "Starting…" : `${p.label || p.name}…`, p.progress);
}

function onEvent(kind, data) {
  const d = JSON.parse(data);
  if (kind === "tensors") setStatus(`Weights to the GPU: ${d.loaded} / ${d.total} tensors`, 100 * d.loaded / d.total);
  if (kind === "embedded") setStatus(`Embedding the corpus: ${d.done} / ${d.total} sentences`, 100 * d.done / d.total);
}

async function search() {
  if (page.running || !page.ready) return;
  page.running = true;
  $("search").disabled = true;
  const query = $("query").value;
  try {
    const r = await page.wt.run(`import json\njson.dumps(search(${JSON.stringify(query)}))`);
    const result = JSON.parse(r);
    page.results.push({query, ...result});
    $("hits").replaceChildren(...result.hits.map((h) => {
      const li = document.createElement("li");
      li.innerHTML = `<span class="score"></span> <code></code>`;
      li.querySelector(".score").textContent = h.score.toFixed(3);
      li.querySelector("code").textContent = h.sentence;
      return li;
    }));
    const t = result.timings;
    showRows($("timings"), [["download the weights", `${t.download.toFixed(2)} s`],
                        ["weights to the GPU", `${t.to_gpu.toFixed(2)} s`],
                        ["embed the corpus", `${t.embed_corpus.toFixed(2)} s`],
                        ["this query", `${(1000 * result.seconds).toFixed(0)} ms`]]);
  } catch (e) {
    print(trimTraceback(e.message), "err");
  } finally {
    page.running = false;
    $("search").disabled = false;
  }
}

async function main(adapter) {
  const info = adapter.info || {};
  page.software = isSoftwareAdapter(adapter);
  showRows($("adapter"), [["vendor", info.vendor], ["architecture", info.architecture],
                          ["device", info.device || info.description], ["software adapter", String(page.software)]]);
  $("software-note").hidden = !page.software;
  page.wt = new Webtorch({onProgress, onEvent, onStdout: (line) => print(line), onStderr: (line) => print(line, "err")});
  await page.wt.start();
  const [model, script] = await Promise.all(["minilm.py", "semantic_search.py"].map(async (f) => (await fetch(`examples/${f}`)).text()));
  await page.wt.putFile("/home/pyodide/minilm.py", model);
  await page.wt.run(`ORIGIN = ${JSON.stringify(location.origin)}\nSUBSET = ${page.software ? 36 : 1}\n` + script);
  page.ready = true;
  $("search").disabled = false;
  $("search").onclick = search;
  $("query").addEventListener("keydown", (ev) => ev.key === "Enter" && search());
  setStatus("Ready", 100);
  document.body.dataset.state = "ready";
  await search();
}

startPage(main);

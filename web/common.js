// What the pages (web/index.html, web/gpt.html, web/search.html) share: the status line and the
// no-WebGPU box (their markup too), the WebGPU check, traceback trimming, the console and definition lists.

// ---------------- WebGPU check (before any download) ----------------
export async function checkWebGPU() {
  if (!self.isSecureContext) {
    return {reason: `This page is not a secure context (${location.origin}): browsers only expose WebGPU ` +
            "to https:// pages and http://127.0.0.1 / localhost. Open it through one of those."};
  }
  if (!navigator.gpu) {
    return {reason: "This browser does not expose WebGPU: navigator.gpu is missing."};
  }
  let adapter = null;
  try {
    adapter = await navigator.gpu.requestAdapter();
  } catch (e) {
    return {reason: `navigator.gpu.requestAdapter() failed: ${e}`};
  }
  if (!adapter) {
    return {reason: "navigator.gpu exists, but requestAdapter() found no GPU adapter: WebGPU is turned off " +
            "in this browser (or your GPU is blocklisted)."};
  }
  return {adapter};
}

// ---------------- the markup every page shares ----------------
// A page holds an empty <div id="status"> in its <header> and an empty <section id="nogpu" hidden>;
// startPage fills them from here.
const STATUS_HTML = `<span id="status-text">Checking WebGPU…</span>
<progress id="status-bar" max="100" value="0"></progress>`;

const NOGPU_HTML = `<h2>WebGPU is not available here</h2>
<p id="nogpu-reason"></p>
<p>webtorch runs your PyTorch code as WebGPU compute shaders, so it needs a browser with WebGPU
  turned on, and a page served from <code>https://</code> or <code>http://127.0.0.1</code> / <code>localhost</code>.</p>
<ul>
  <li><b>Chrome / Edge 137 or newer</b> on Windows, macOS and ChromeOS: WebGPU is on by default;
    check <code>chrome://gpu</code> (“WebGPU: Hardware accelerated”) in case your GPU is blocklisted.</li>
  <li><b>Chrome on Linux</b> (and Android GPUs not yet enabled): open <code>chrome://flags/#enable-unsafe-webgpu</code>
    and <code>chrome://flags/#enable-vulkan</code>, set both to <i>Enabled</i> and relaunch
    (or start Chrome with <code>--enable-unsafe-webgpu --enable-features=Vulkan</code>).</li>
  <li><b>Firefox</b> 141+ on Windows has WebGPU; elsewhere set <code>dom.webgpu.enabled</code> in <code>about:config</code>
    (synchronous readback also needs JSPI: <code>javascript.options.wasm_js_promise_integration</code>).</li>
  <li><b>Safari</b> 26 has WebGPU on by default (earlier: Develop → Feature Flags → WebGPU).</li>
</ul>
<p>Then reload this page.</p>`;

// A page's start: main() runs once WebGPU has an adapter (given to it); without one the page's #nogpu box
// says why; a failure in main() goes to the status line and the console.
export async function startPage(main) {
  document.getElementById("status").innerHTML = STATUS_HTML;
  document.getElementById("nogpu").innerHTML = NOGPU_HTML;
  try {
    const check = await checkWebGPU();
    if (!check.adapter) {
      document.body.dataset.state = "nogpu";
      document.getElementById("nogpu").hidden = false;
      document.getElementById("nogpu-reason").textContent = check.reason;
      setStatus("WebGPU unavailable", 0);
      return;
    }
    await main(check.adapter);
  } catch (e) {
    document.body.dataset.state = "error";
    setStatus(`Start-up failed: ${(e.message || String(e)).split("\n").slice(-2).join(" ")}`);
    print(trimTraceback(e.message || String(e)), "err");
    console.error(e);
  }
}

// Drop Pyodide's own frames (eval_code_async & co) from a traceback: they precede the user's.
export function trimTraceback(text) {
  const lines = text.replace(/\s+$/, "").split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^  File "\/lib\/python\d+\.zip\/_pyodide\//.test(lines[i])) {
      while (i + 1 < lines.length && /^    /.test(lines[i + 1])) i++;
      continue;
    }
    out.push(lines[i]);
  }
  return out.join("\n");
}

export function setStatus(text, pct) {
  document.getElementById("status-text").textContent = text;
  if (pct != null) document.getElementById("status-bar").value = pct;
}

// A line in the page's #console (cls: "err" or "info").
export function print(text, cls) {
  const el = document.getElementById("console");
  const span = document.createElement("span");
  if (cls) span.className = cls;
  span.textContent = text + "\n";
  el.appendChild(span);
  while (el.childNodes.length > 2000) el.removeChild(el.firstChild);
  el.scrollTop = el.scrollHeight;
}

// A <dl> showing [name, value] pairs.
export function showRows(dl, pairs) {
  dl.replaceChildren(...pairs.flatMap(([k, v]) => {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v || "n/a";
    return [dt, dd];
  }));
}

// A cleared white canvas at the display's pixel ratio: its 2-D context (in CSS pixels) and size.
export function blankCanvas(canvas) {
  const dpr = self.devicePixelRatio || 1;
  const W = canvas.clientWidth || 560, H = canvas.clientHeight || 240;
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  const g = canvas.getContext("2d");
  g.scale(dpr, dpr);
  g.fillStyle = "#fff";
  g.fillRect(0, 0, W, H);
  return {g, W, H};
}

// Whether a WebGPU adapter is a software one (the GPU emulated on the CPU).
export function isSoftwareAdapter(adapter) {
  const info = adapter.info || {};
  return !!info.isFallbackAdapter || /swiftshader|llvmpipe/i.test(`${info.architecture} ${info.device}`);
}

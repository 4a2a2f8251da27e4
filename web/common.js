// What the pages (web/index.html, web/gpt.html, web/search.html) share: the WebGPU check, traceback
// trimming, the status line, the console and definition lists.

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

// A page's start: main() runs once WebGPU has an adapter (given to it); without one the page's #nogpu box
// says why; a failure in main() goes to the status line and the console.
export async function startPage(main) {
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

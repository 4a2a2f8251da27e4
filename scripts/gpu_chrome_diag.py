"""Which page feature ends real Chromium under which flags: a matrix of small pages (blank, the demo's layout
without its script, a 2-D canvas, the demo's 40 pixelated 8x8 digit canvases, a <progress> bar, the demo
pages themselves) x flag sets, each flag set in a browser of its own (in parallel), its pages opened in
turn as the tests open them (a context with a 1280x1100 viewport) until one ends the page or the browser.

    python scripts/gpu_chrome_diag.py OUT.json 'name=flags' ['name=flags' ...]

Writes OUT.json ({name: {"flags", "pages": {page: "ok" | error}, "survived", "log": Chromium's stderr lines
worth reading}}) and prints one line per flag set. Env: WEBTORCH_CHROMIUM (the browser). Used by
scripts/gpu_chrome_run.sh (DIAG=1) to choose the flags the demo pages' tests run with.
"""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DIGITS = """<div id="p"></div><script>
for (let i = 0; i < 40; i++) { const c = document.createElement('canvas'); c.width = 8; c.height = 8;
  const img = new ImageData(8, 8); for (let k = 0; k < 256; k++) img.data[k] = (k * 37 + i) & 255;
  c.getContext('2d').putImageData(img, 0, 0); const d = document.createElement('div'); d.className = 'digit';
  d.append(c); document.getElementById('p').append(d); }</script>"""
CANVAS = """<canvas id="plot" width="560" height="240"></canvas><script>
const g = document.getElementById('plot').getContext('2d'); g.fillStyle = '#fff'; g.fillRect(0, 0, 560, 240);
g.strokeStyle = '#ee4c2c'; g.beginPath(); g.moveTo(10, 10); g.lineTo(500, 200); g.stroke();
g.font = '11px system-ui, sans-serif'; g.fillText('loss', 20, 20);</script>"""
PROGRESS = '<div id="status"><progress></progress><progress value="3" max="10"></progress> loading</div>'
# page name -> (path, body or None for the file itself); a body is served at the path by the context's route
PAGES = {
    "blank": ("/web/_diag_blank.html", "<p>blank</p>"),
    "layout": ("/web/_diag_layout.html", None),  # web/index.html without its script
    "canvas2d": ("/web/_diag_canvas.html", CANVAS),
    "digits": ("/web/_diag_digits.html", DIGITS),
    "progress": ("/web/_diag_progress.html", PROGRESS),
    "index": ("/web/index.html", None),
    "gpt": ("/web/gpt.html", None),
}
WORTH = re.compile(r"FATAL|font|Check failed|crash|exited unexpectedly|GPU process|lost|Vulkan|vk|VK_|Skia|GrContext|"
                   r"SharedImage|ContextResult|Goodbye|signal|terminated|Received", re.I)


def _body(name):
    path, body = PAGES[name]
    if name == "layout":
        return (REPO / "web/index.html").read_text().replace('<script type="module" src="demo.js"></script>', "")
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="demo.css"></head>'
            f'<body data-state="ready">{body}</body></html>')


def _serve(html):
    return lambda route: route.fulfill(content_type="text/html", body=html)


def one(flags: str) -> dict:
    """This process: one browser with `flags`, the pages in turn; the result as a JSON line on stdout."""
    import importlib.util
    from playwright.sync_api import sync_playwright
    spec = importlib.util.spec_from_file_location("serve", REPO / "scripts" / "serve.py")
    serve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve)
    server, url = serve.start_server(0)
    args = ["--no-sandbox", "--enable-unsafe-webgpu", "--disable-background-networking", "--disable-component-update",
            "--enable-logging=stderr", "--v=0"] + flags.split()
    pages, survived = {}, True
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ["WEBTORCH_CHROMIUM"], args=args)
        for name, (path, body) in PAGES.items():
            try:
                ctx = browser.new_context(viewport={"width": 1280, "height": 1100})
                if body is not None or name == "layout":
                    ctx.route(url + path, _serve(_body(name)))
                page = ctx.new_page()
                crashed = []
                page.on("crash", lambda *_: crashed.append(1))
                page.goto(url + path, timeout=20_000)
                time.sleep(3)  # the first frames, the scripts' first drawing
                page.evaluate("document.body.offsetHeight")
                page.screenshot()  # a frame through the compositor
                pages[name] = "page crashed" if crashed else "ok"
                ctx.close()
            except Exception as e:  # noqa: BLE001 (what ended it is the result)
                pages[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
                if not browser.is_connected():
                    survived = False
                    break
        try:
            browser.close()
        except Exception:  # noqa: BLE001
            pass
    server.shutdown()
    return {"flags": flags, "pages": pages, "survived": survived}


def main():
    if sys.argv[1] == "--one":
        print(json.dumps(one(sys.argv[2])), flush=True)
        return
    out = Path(sys.argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    sets = dict(a.split("=", 1) for a in sys.argv[2:])
    procs = {}
    for name, flags in sets.items():
        err = open(out.with_name(f"diag-{name}.stderr"), "w")
        procs[name] = (subprocess.Popen([sys.executable, __file__, "--one", flags], stdout=subprocess.PIPE,
                                        stderr=err, text=True, env={**os.environ, "DEBUG": "pw:browser"}), err)
    result = {}
    for name, (proc, err) in procs.items():
        try:
            stdout, _ = proc.communicate(timeout=150)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout = ""
        err.close()
        lines = out.with_name(f"diag-{name}.stderr").read_text(errors="replace").splitlines()
        res = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else {"flags": sets[name], "pages": {},
                                                                                  "survived": False}
        res["log"] = [ln[-400:] for ln in lines if WORTH.search(ln)][-60:]
        result[name] = res
        print(f"{name}: survived={res['survived']} {res['pages']}", flush=True)
    out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

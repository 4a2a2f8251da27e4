"""What WebGPU adapter headless Chromium gives with each set of flags: python3 scripts/gpu_chrome_probe.py OUT.json
Env: WEBTORCH_CHROMIUM (the browser), GPU_CHROME_FLAGSETS (JSON: {name: "flags"}). Used by scripts/gpu_chrome_run.sh."""
import json
import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import serve  # noqa: E402

ADAPTER = """async () => {
  if (!navigator.gpu) return {error: "no navigator.gpu"};
  const a = await navigator.gpu.requestAdapter({powerPreference: "high-performance"});
  if (!a) return {error: "requestAdapter() gave null"};
  const i = a.info || {};
  let smc = null;
  try { smc = i.subgroupMatrixConfigs ? [...i.subgroupMatrixConfigs].map((c) => `${c.componentType}->${c.resultComponentType} ${c.M}x${c.N}x${c.K}`) : null; }
  catch (e) { smc = String(e); }
  return {vendor: i.vendor, architecture: i.architecture, device: i.device, description: i.description,
          isFallbackAdapter: i.isFallbackAdapter, features: [...a.features].sort(), subgroupMatrixConfigs: smc,
          maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize, jspi: typeof WebAssembly.Suspending === "function"};
}"""


def main(out):
    flagsets = json.loads(os.environ["GPU_CHROME_FLAGSETS"])
    server, url = serve.start_server(0)
    result = {}
    try:
        with sync_playwright() as p:
            for name, flags in flagsets.items():
                try:
                    browser = p.chromium.launch(executable_path=os.environ["WEBTORCH_CHROMIUM"],
                                                args=["--no-sandbox", "--enable-unsafe-webgpu"] + flags.split())
                    page = browser.new_page()
                    page.goto(f"{url}/dev")  # a small page of the server (WebGPU needs its secure context)
                    result[name] = {"flags": flags, "browser": browser.version, "adapter": page.evaluate(ADAPTER)}
                    browser.close()
                except Exception as e:  # noqa: BLE001 - a flag set that fails is a finding, the others still run
                    result[name] = {"flags": flags, "error": f"{type(e).__name__}: {e}"}
                print(f"[probe] {name}: {json.dumps(result[name])[:1200]}", flush=True)
    finally:
        server.shutdown()
        server.server_close()
    Path(out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])

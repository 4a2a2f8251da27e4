"""Complex numbers, torch.fft and stft in Pyodide (issue 24), on webgpu (SwiftShader) and cpu (pure
Python), against values torch computed on the host: a rotary embedding through polar/view_as_complex with
its gradient, an fft of a length with a large prime factor (Bluestein), and a spectrogram."""
import json

import torch

PROGRAM = """
x = T.tensor(X, device=device, requires_grad=True)
freqs = T.polar(T.ones(4, 3, device=device), T.outer(T.arange(4.0, device=device), T.tensor([1.0, 0.1, 0.01], device=device)))
rotated = T.view_as_real(T.view_as_complex(x.reshape(4, 3, 2)) * freqs).flatten(1)
(rotated * T.arange(24.0, device=device).reshape(4, 6)).sum().backward()
z = T.complex(x.detach()[:, :3], x.detach()[:, 3:])
signal = T.tensor(S, device=device)
spec = T.stft(signal, 32, 8, window=T.hann_window(32, device=device), return_complex=True).abs() ** 2
results = [rotated, x.grad, T.view_as_real(T.fft.fft(signal[:134])), T.fft.irfft(T.fft.rfft(signal), 150), spec,
           T.view_as_real(z @ z.mH), (z.sum() * 1j).real, repr(z[0].cpu())]
"""


def _golden(xs, signal):
    env = {"T": torch, "X": xs, "S": signal, "device": "cpu"}
    exec(PROGRAM, env)
    return [r if isinstance(r, str) else r.detach().flatten().tolist() for r in env["results"]]


def test_complex_fft_stft_in_pyodide(py_page):
    xs = [[((i * 7 + j * 3) % 11 - 5) / 4 for j in range(6)] for i in range(4)]
    signal = [((k * 37) % 23 - 11) / 7 for k in range(150)]
    expected = _golden(xs, signal)
    got = json.loads(py_page.run(f"""
import json
import webtorch as T
out = {{}}
for device in ("webgpu", "cpu"):
    env = {{"T": T, "X": {xs!r}, "S": {signal!r}, "device": device}}
    exec({PROGRAM!r}, env)
    out[device] = [r if isinstance(r, str) else r.detach().cpu().reshape(-1).tolist() for r in env["results"]]
json.dumps(out)
""", timeout=600))
    for device, results in got.items():
        for i, (a, e) in enumerate(zip(results, expected)):
            if isinstance(e, str):
                assert a == e.replace("torch", "webtorch"), (device, a, e)
                continue
            assert len(a) == len(e), (device, i)
            scale = max(1.0, max(abs(v) for v in e))
            assert all(abs(p - q) <= 1e-4 * scale for p, q in zip(a, e)), (device, i, a[:5], e[:5])

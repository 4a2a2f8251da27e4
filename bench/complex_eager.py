"""Times eager complex64 work on webgpu (the host's native WebGPU through wgpu-py: lavapipe here, the GPU
of the device tool there): a * b, a + b and a.abs() of 2**22 elements (with the kernels each dispatches),
and torch.fft.fft of a (4096, 256) tensor along its last dim (4096 transforms of 256 points) and along dim
0 (256 transforms of 4096 points):

    python bench/complex_eager.py [--rows 4096] [--cols 256] [--elements 4194304] [--repeats 5]

Prints the median milliseconds of each (after a warm-up call; each timed call ends with
webgpu.synchronize()) and, for fft, the largest difference from the float64 transform (relative to its
largest magnitude)."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402
from webtorch.backend import gpu  # noqa: E402
from sparse_mm import timed as median_ms  # noqa: E402  (a warm-up call, then the median of synchronized calls)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=256)
    parser.add_argument("--elements", type=int, default=1 << 22)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    a, b = (torch.complex(torch.randn(args.elements, device="webgpu"), torch.randn(args.elements, device="webgpu"))
            for _ in range(2))
    for name, fn in (("a * b", lambda: a * b), ("a + b", lambda: a + b), ("a.abs()", lambda: a.abs())):
        start = gpu.runtime().kernels_dispatched
        fn()
        kernels = gpu.runtime().kernels_dispatched - start
        print(f"{name} ({args.elements} complex64): {kernels} kernels, median {median_ms(fn, args.repeats):.0f} ms")
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((args.rows, args.cols)) + 1j * rng.standard_normal((args.rows, args.cols)))
    z = torch.from_numpy(x.astype(np.complex64)).to("webgpu")
    for dim in (-1, 0):
        out = torch.fft.fft(z, dim=dim)
        ms = median_ms(lambda: torch.fft.fft(z, dim=dim), args.repeats)
        reference = np.fft.fft(x, axis=dim)
        error = np.abs(out.cpu().numpy() - reference).max() / np.abs(reference).max()
        n = args.cols if dim == -1 else args.rows
        print(f"fft dim={dim} ({x.size // n} x {n} points): median {ms:.0f} ms, "
              f"max error {error:.1e}")


if __name__ == "__main__":
    main()

"""Times eager torch.fft.fft of a complex64 (4096, 256) tensor on webgpu (the host's native WebGPU through
wgpu-py: lavapipe here, the GPU of the device tool there), along its last dim (4096 transforms of 256
points) and along dim 0 (256 transforms of 4096 points):

    python bench/fft_eager.py [--rows 4096] [--cols 256] [--repeats 5]

Prints the median milliseconds of each (after a warm-up call; each timed call ends with
webgpu.synchronize()) and the largest difference from the float64 transform (relative to its largest
magnitude)."""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((args.rows, args.cols)) + 1j * rng.standard_normal((args.rows, args.cols)))
    z = torch.from_numpy(x.astype(np.complex64)).to("webgpu")
    for dim in (-1, 0):
        def fn():
            return torch.fft.fft(z, dim=dim)
        out = fn()
        torch.webgpu.synchronize()
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            fn()
            torch.webgpu.synchronize()
            times.append((time.perf_counter() - start) * 1e3)
        reference = np.fft.fft(x, axis=dim)
        error = np.abs(out.cpu().numpy() - reference).max() / np.abs(reference).max()
        n = args.cols if dim == -1 else args.rows
        print(f"fft dim={dim} ({x.size // n} x {n} points): median {statistics.median(times):.0f} ms, "
              f"max error {error:.1e}")


if __name__ == "__main__":
    main()

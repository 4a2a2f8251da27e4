"""Times eager complex64 work on webgpu (the host's native WebGPU through wgpu-py: lavapipe here, the GPU
of the device tool there): a * b, a + b and a.abs() of 2**22 elements (with the kernels each dispatches),
and torch.fft.fft of a (4096, 256) tensor along its last dim (4096 transforms of 256 points) and along dim
0 (256 transforms of 4096 points):

    python bench/complex_eager.py [--rows 4096] [--cols 256] [--elements 4194304] [--repeats 5]

With --targets it measures issue 24's two complex targets instead, through bench/workloads.py's complex section
(the one bench/dawn.mjs runs on Node + Dawn) on the native adapter: the complex64 multiply's GB/s against a
float32 copy's at 2**24 elements (target >= 80%), and fft of 2**20 points against the DFT matmul timed at 2**13
points and scaled by n^2 (target >= 50x); on a GPU (heated: --warm-s 1):

    python bench/complex_eager.py --targets [--targets-elements 16777216] [--fft-log2 20] [--dft-log2 13]

Prints the median milliseconds of each (after a warm-up call; each timed call ends with
webgpu.synchronize()) and, for fft, the largest difference from the float64 transform (relative to its
largest magnitude)."""
import argparse
import os
import sys

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
    parser.add_argument("--targets", action="store_true", help="issue 24's targets (bench/workloads.py's complex)")
    parser.add_argument("--targets-elements", type=int, default=1 << 24)
    parser.add_argument("--fft-log2", type=int, default=20)
    parser.add_argument("--dft-log2", type=int, default=13)
    parser.add_argument("--warm-s", type=float, default=0.0, help="seconds of calls before each timing (1 on a GPU)")
    args = parser.parse_args()
    if args.targets:
        return targets(args)
    a, b = (torch.complex(torch.randn(args.elements, device="webgpu"), torch.randn(args.elements, device="webgpu"))
            for _ in range(2))
    for name, fn in (("a * b", lambda: a * b), ("a + b", lambda: a + b), ("a.abs()", lambda: a.abs())):
        start = gpu.runtime().kernels_dispatched
        fn()
        kernels = gpu.runtime().kernels_dispatched - start
        print(f"{name} ({args.elements} complex64): {kernels} kernels, median {median_ms(fn, args.repeats):.0f} ms")
    import numpy as np  # (here: --targets runs where numpy is not installed)
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


def targets(args):
    """Issue 24's complex targets through bench/workloads.py's complex section (its timing: rounds of calls,
    the median round), with the native adapter's runtime."""
    import workloads
    cfg = {"complex_sizes": [args.targets_elements], "fft_log2": args.fft_log2, "dft_log2": args.dft_log2,
           "bw_byte_budget": 2e10, "rounds": args.repeats, "warm_ms": 1e3 * args.warm_s}
    workloads._cfg.update(cfg)
    result = workloads.complex(cfg)
    print(f"device: {torch.webgpu.get_device_name()}")
    for m in result["multiply"]:
        print(f"complex64 a * b, {m['numel']} elements: {m['mul_ms']:.3f} ms, {m['mul_gbps']:.1f} GB/s ({m['kernels']} "
              f"kernels); float32 copy: {m['copy_ms']:.3f} ms, {m['copy_gbps']:.1f} GB/s; "
              f"{m['mul_gbps'] / m['copy_gbps']:.0%} of the copy's bandwidth (target >= 80%)")
    for f in result["fft"]:
        print(f"fft of {f['points']} complex64 points: {f['fft_ms']:.3f} ms ({f['fft_kernels']} kernels); DFT matmul of "
              f"{f['dft_points']} points {f['dft_ms']:.3f} ms, scaled by n^2 to {f['points']}: "
              f"{f['dft_ms_scaled_to_points']:.0f} ms; fft {f['speedup']:.0f}x faster (target >= 50x)")


if __name__ == "__main__":
    main()

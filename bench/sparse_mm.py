"""Times sparse @ dense on webgpu against the dense matmul of the densified matrix (issue 24's target:
at 1% density, a (4096, 4096) sparse COO matrix times a (4096, 256) dense one, >= 5x the dense matmul).
webtorch on the host's native WebGPU (wgpu-py: the GPU of the device tool, or lavapipe):

    python bench/sparse_mm.py [--m 4096] [--n 256] [--density 0.01] [--repeats 20] [--warm-s 0] [--calls 1]

Prints the median milliseconds per call of each (after a warm-up call and --warm-s seconds of calls; each timed
round of --calls calls ends with webgpu.synchronize()), the ratio, and the largest difference between the two
results. On the GPU: --warm-s 1 --calls 10 (a heated GPU's time per call, not the synchronize's round trip)."""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402


def timed(fn, repeats, warm_s=0.0, calls=1):
    """The median milliseconds per call of repeats rounds of `calls` calls, each round closed by a synchronize
    (calls > 1: the GPU's time per call more than the round trip's), after a warm-up call and warm_s seconds more
    of them (a GPU idle for a while runs at a low clock until it is kept busy: the H200's 345 MHz)."""
    fn()
    torch.webgpu.synchronize()
    start = time.perf_counter()
    while time.perf_counter() - start < warm_s:
        fn()
        torch.webgpu.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.webgpu.synchronize()
        times.append((time.perf_counter() - start) * 1e3 / calls)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=4096)
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--density", type=float, default=0.01)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--warm-s", type=float, default=0.0, help="seconds of calls before each timing (1 on a GPU)")
    parser.add_argument("--calls", type=int, default=1, help="calls per synchronize (10: the GPU's time per call)")
    args = parser.parse_args()
    torch.manual_seed(0)
    mask = torch.rand(args.m, args.m, device="webgpu") < args.density
    dense_matrix = torch.randn(args.m, args.m, device="webgpu") * mask
    sparse = dense_matrix.to_sparse()  # coalesced: the product runs spmm.wgsl straight away
    other = torch.randn(args.m, args.n, device="webgpu")
    with torch.no_grad():
        sparse_ms = timed(lambda: torch.sparse.mm(sparse, other), args.repeats, args.warm_s, args.calls)
        dense_ms = timed(lambda: torch.mm(dense_matrix, other), args.repeats, args.warm_s, args.calls)
        difference = (torch.sparse.mm(sparse, other) - torch.mm(dense_matrix, other)).abs().max().item()
    print(f"device: {torch.webgpu.get_device_name()}")
    print(f"sparse ({args.m}x{args.m}, nnz {sparse._nnz()}, density {args.density:g}) @ dense ({args.m}x{args.n}): "
          f"{sparse_ms:.3f} ms")
    print(f"dense matmul of the densified matrix: {dense_ms:.3f} ms")
    print(f"sparse / dense speed: {dense_ms / sparse_ms:.2f}x (target >= 5x); max |difference| {difference:.2e}")


if __name__ == "__main__":
    main()

# Matmul benchmark: n x n @ n x n in float32 on WebGPU; GFLOP/s = 2 n^3 / time.
import time
import webtorch as torch

torch.manual_seed(0)
for n in (64, 128, 256, 512, 1024, 2048):
    a = torch.randn(n, n, device="webgpu")
    b = torch.randn(n, n, device="webgpu")
    t0 = time.perf_counter()
    (a @ b).sum().item()          # the first run also compiles the kernel; wait for it
    first = time.perf_counter() - t0
    reps = max(1, min(20, int(0.2 / first)))  # about 0.2 s per size
    t0 = time.perf_counter()
    for _ in range(reps):
        c = a @ b
    torch.webgpu.synchronize()    # kernels run asynchronously: wait before stopping the clock
    dt = (time.perf_counter() - t0) / reps
    print(f"{n:4d} x {n:<4d} {dt * 1e3:8.2f} ms  {2 * n ** 3 / dt / 1e9:7.2f} GFLOP/s")
    if dt > 0.1:                  # a slow (software) adapter: stop before it takes minutes
        print("(stopping here: this adapter is slow)")
        break

# check one against the CPU (pure Python here: Pyodide has no numpy by default)
n = 64
a, b = torch.randn(n, n, device="webgpu"), torch.randn(n, n, device="webgpu")
err = ((a @ b).cpu() - a.cpu() @ b.cpu()).abs().max().item()
print(f"max |gpu - cpu| for {n}x{n}: {err:.2e}")

"""Checks reduce_fold_last.wgsl on a real GPU (CPython + wgpu-py; CPU adapters never fold): sums and maxima
of long rows, folded in one launch and by the two-pass path (fold off), against math.fsum / max of the same
values on the host, 50 calls in a row each (the fold scratch is reused). Not a test: lavapipe's are in
tests/test_ops.py (test_split_rows_fold_their_partials_in_one_launch).

    python bench/fold_check.py OUT.json      # bench/results/h200-tc-reduce/fold_check_native.json
"""
import json, math, random, sys, time
import webtorch
from webtorch.backend import gpu, kernels
from webtorch.backend.webgpu import runtime
rt = runtime()
print(rt.driver.adapter_info, sorted(rt.features))
out = []
for n, shape in [(1 << 24, None), (1 << 20, None), (3 * 300000, (3, 300000)), ((1 << 26) + 12345, None), (100 * 50000, (100, 50000))]:
    x = webtorch.randn(n, device="webgpu")
    if shape:
        x = x.view(*shape)
    host = x.cpu().tolist()
    rows = host if shape else [host]
    ref = [math.fsum(r) for r in rows]
    refmax = [max(r) for r in rows]
    for fold in (True, False):
        kernels.FOLD_PARTIALS = 4096 if fold else 0
        gpu._REDUCE_PLANS.clear()
        errs, maxes = [], []
        for rep in range(50):
            k0 = rt.kernels_dispatched
            s = (x.sum() if not shape else x.sum(1)).tolist()
            m = (x.amax() if not shape else x.amax(1)).tolist()
            launches = rt.kernels_dispatched - k0
            s = s if shape else [s]
            m = m if shape else [m]
            errs.append(max(abs(a - b) for a, b in zip(s, ref)))
            maxes.append(all(a == b for a, b in zip(m, refmax)))
        out.append({"n": n, "shape": shape, "fold": fold, "launches_sum_and_max": launches, "max_abs_err": max(errs),
                    "sum_scale": max(abs(r) for r in ref), "max_exact_all": all(maxes)})
        print(out[-1], flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)

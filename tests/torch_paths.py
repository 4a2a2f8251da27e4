"""Host torch as a reference where its float32 CPU result depends on its kernel path.

At float32's edges torch's CPU answer differs between its vectorised loops (AVX512, AVX2, the
`ATEN_CPU_CAPABILITY=default` emulation) and its scalar tail: gelu of 1.7e38..3e38 (an intermediate
overflows in one path: inf, finite in another), gelu(inf) (NaN in one), sub with alpha (fused or not).
A test must pass on any x86-64 host, so it accepts, element by element, this host's float32 result
or the float64 one rounded to float32: the value every path should round to.
"""
import torch


def float64_too(fn, args):
    """fn(*args) with float32 tensors computed in float64, its float results rounded back (None where
    fn does not run so)."""
    try:
        return fn(*[a.double() if isinstance(a, torch.Tensor) and a.dtype is torch.float32 else a for a in args])
    except (RuntimeError, TypeError):
        return None


def close_to_either(got, want, want64, atol, rtol):
    """Elementwise: got close to torch's float32 want or to its float64 want64 (NaN equal to NaN)."""
    got = torch.as_tensor(got, dtype=want.dtype).reshape(want.shape)
    ok = torch.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
    if want64 is not None and want.is_floating_point():
        ok |= torch.isclose(got, want64.to(want.dtype), atol=atol, rtol=rtol, equal_nan=True)
    return ok


def assert_close_to_either(got, want, want64, atol, rtol, what=""):
    ok = close_to_either(got, want, want64, atol, rtol)
    if not bool(ok.all()):
        i = (~ok).flatten().nonzero()[0].item()
        g = torch.as_tensor(got, dtype=want.dtype).flatten()
        raise AssertionError(f"{what}: {int((~ok).sum())} of {ok.numel()} differ, e.g. at {i}: {g[i].item()!r}, "
                             f"torch {want.flatten()[i].item()!r}"
                             + (f" (float64 {want64.flatten()[i].item()!r})" if want64 is not None else ""))

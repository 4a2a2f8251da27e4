"""Complex tensors (issue 24) beyond the op table (tests/complex_cases.py): repr, type promotion, save/load
both ways with torch, numpy, the float64 rule on webgpu, refusals, and a Llama-style rotary embedding that
trains like torch's."""
import io
import math
import warnings

import numpy as np
import pytest
import torch

import webtorch

DEVICES = ["cpu", "webgpu"]


@pytest.mark.parametrize("values,dtype", [
    ([1 + 2j, 3.5 - 1j], "complex64"), ([[1e-5 + 2j, 1e5 - 1j]], "complex64"), ([0j], "complex64"),
    ([1j, -2.25 + 0.5j], "complex128"), ([complex(math.nan, 1), complex(2, -math.inf)], "complex64"),
    ([], "complex64"), (1 - 3j, "complex64")])
def test_repr_like_torch(values, dtype):
    expected = repr(torch.tensor(values, dtype=getattr(torch, dtype))).replace("torch.", "webtorch.")
    assert repr(webtorch.tensor(values, dtype=getattr(webtorch, dtype))) == expected


DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]


def test_promotion_like_torch():
    for a in DTYPES:
        for b in DTYPES:
            expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
            if expected is torch.complex32:
                continue  # (webtorch holds no complex32 tensors)
            assert webtorch.promote_types(getattr(webtorch, a), getattr(webtorch, b)).name == str(expected)[6:], (a, b)
    for scalar in (1j, 2.5, 3, True):
        for name in ("int64", "float32", "float64", "complex64", "complex128", "bool"):
            expected = torch.result_type(torch.zeros(2, dtype=getattr(torch, name)), scalar)
            got = webtorch.result_type(webtorch.zeros(2, dtype=getattr(webtorch, name)), scalar)
            assert got.name == str(expected)[6:], (name, scalar)
    zero_dim = webtorch.result_type(webtorch.zeros(2), webtorch.tensor(1j, dtype=webtorch.complex128))
    assert zero_dim is webtorch.complex64  # torch: the dimensioned float32 decides the complex width


def test_save_load_both_ways(tmp_path):
    z = torch.randn(3, 4, dtype=torch.cfloat)
    saved = {"z": z, "view": z[1:, ::2], "double": torch.randn(2, dtype=torch.cdouble), "conj": z.conj(),
             "param": torch.nn.Parameter(torch.randn(2, dtype=torch.cfloat))}
    buf = io.BytesIO()
    torch.save(saved, buf)
    loaded = webtorch.load(io.BytesIO(buf.getvalue()))
    for key, value in saved.items():
        assert loaded[key].dtype.name == str(value.dtype)[6:]
        assert loaded[key].tolist() == value.resolve_conj().tolist(), key
    back = io.BytesIO()
    webtorch.save(loaded, back)
    again = torch.load(io.BytesIO(back.getvalue()))
    for key, value in saved.items():
        assert torch.equal(again[key], value.resolve_conj()), key
    assert again["view"].untyped_storage().data_ptr() == again["z"].untyped_storage().data_ptr()
    on_gpu = webtorch.load(io.BytesIO(buf.getvalue()), map_location="webgpu")
    assert on_gpu["z"].device.type == "webgpu" and on_gpu["z"].tolist() == z.tolist()


def test_numpy_both_ways():
    a = (np.arange(6).reshape(2, 3) + 1j * np.arange(6).reshape(2, 3)).astype(np.complex64)
    t = webtorch.from_numpy(a)
    assert t.dtype is webtorch.complex64 and t.tolist() == a.tolist()
    t.real.mul_(2)  # shares the array's memory, as torch's from_numpy
    assert a[1, 2] == 10 + 5j
    assert webtorch.from_numpy(a.T).stride() == (1, 3)
    back = webtorch.tensor([1 + 1j, 2], dtype=webtorch.complex128).numpy()
    assert back.dtype == np.complex128 and back.tolist() == [1 + 1j, 2]
    assert webtorch.as_tensor(np.array([1j], dtype=np.complex128)).dtype is webtorch.complex128


def test_views_share_memory_and_versions():
    x = webtorch.zeros(3, 2)
    z = webtorch.view_as_complex(x)
    z[1] = 2 - 1j
    assert x.tolist() == [[0, 0], [2, -1], [0, 0]]
    assert webtorch.view_as_real(z)._storage is x._storage
    assert z.real._storage is x._storage and z.imag.storage_offset() == 1
    before = x._version
    z.imag.add_(1)
    assert x._version == z._version > before


def test_complex128_on_webgpu_becomes_complex64_with_float64s_warning():
    with pytest.warns(UserWarning, match="float64"):
        t = webtorch.tensor([1 + 2j], dtype=webtorch.complex128, device="webgpu")
    assert t.dtype is webtorch.complex64 and t.tolist() == [1 + 2j]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert webtorch.tensor([1 + 2j], dtype=webtorch.complex128).to("webgpu").dtype is webtorch.complex64


@pytest.mark.parametrize("device", DEVICES)
def test_ops_without_a_complex_form_refuse(device):
    z = webtorch.tensor([1 + 1j, 2], device=device)
    for op in (lambda: z.cumsum(0), lambda: webtorch.sort(z), lambda: z.tanh(), lambda: z.max()):
        with pytest.raises(NotImplementedError, match="complex"):
            op()


@pytest.mark.parametrize("device", DEVICES)
def test_leaf_gradient_is_torchs_convention(device):
    values = [1 + 2j, 3 - 4j, -0.5 + 0.25j]
    grads = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        w = T.tensor(values, device=dev, requires_grad=True)
        c = T.tensor([0.5 - 1j, 2j, 1.5], device=dev)
        loss = ((w * c).exp().abs() ** 2).sum() + (w.conj() * w).real.sum() + (w / c).angle().sum()
        loss.backward()
        grads.append(w.grad.tolist())
    for a, b in zip(*grads):
        assert abs(a - b) <= 1e-4 * (1 + abs(b))


class Rotary(object):
    """A Llama attention-score model with rotary embeddings written as torch's Llama does (polar,
    view_as_complex, a complex multiply, view_as_real), trained with SGD."""

    @staticmethod
    def run(T, device, steps=3):
        T.manual_seed(0)
        gen = np.random.default_rng(0)
        d, n = 8, 6
        wq = T.tensor(gen.standard_normal((d, d)).astype(np.float32) * 0.3, device=device, requires_grad=True)
        wk = T.tensor(gen.standard_normal((d, d)).astype(np.float32) * 0.3, device=device, requires_grad=True)
        x = T.tensor(gen.standard_normal((2, n, d)).astype(np.float32), device=device)
        target = T.tensor(gen.standard_normal((2, n, n)).astype(np.float32), device=device)
        freqs = 1.0 / (10000 ** (T.arange(0, d, 2, device=device)[: d // 2].float() / d))
        freqs_cis = T.polar(T.ones(n, d // 2, device=device), T.outer(T.arange(n, device=device).float(), freqs))

        def rotate(t):
            tc = T.view_as_complex(t.float().reshape(*t.shape[:-1], -1, 2))
            return T.view_as_real(tc * freqs_cis).flatten(2).type_as(t)

        losses = []
        for _ in range(steps):
            q, k = rotate(x @ wq), rotate(x @ wk)
            loss = ((q @ k.transpose(1, 2) / math.sqrt(d) - target) ** 2).mean()
            loss.backward()
            with T.no_grad():
                for w in (wq, wk):
                    w -= 0.1 * w.grad
                    w.grad = None
            losses.append(loss.item())
        return losses, wq.detach().cpu().tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_rotary_embedding_trains_like_torch(device):
    expected_losses, expected_w = Rotary.run(torch, "cpu")
    losses, w = Rotary.run(webtorch, device)
    assert np.allclose(losses, expected_losses, rtol=1e-4, atol=1e-5)
    assert np.allclose(w, expected_w, rtol=1e-4, atol=1e-5)
    assert losses[-1] < losses[0]


def _mel_filters(n_freqs, n_mels, sample_rate):
    """torchaudio's melscale_fbanks (HTK scale, no norm), in numpy: (n_freqs, n_mels)."""
    mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)  # noqa: E731
    freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(mel(0.0), mel(sample_rate / 2.0), n_mels + 2)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
    slopes = f_pts[None, :] - freqs[:, None]
    f_diff = f_pts[1:] - f_pts[:-1]
    down, up = -slopes[:, :-2] / f_diff[:-1], slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up)).astype(np.float32)


def spectrogram(T, device, audio, filters):
    """Whisper's log-mel front end up to the mel power: stft (n_fft 400, hop 160, Hann) -> |.|^2 -> filters."""
    x = T.tensor(audio, device=device)
    stft = T.stft(x, 400, 160, window=T.hann_window(400, device=device), return_complex=True)
    power = stft[..., :-1].abs() ** 2
    return T.tensor(filters.T.copy(), device=device) @ power


@pytest.mark.parametrize("device", DEVICES)
def test_spectrogram_equals_torch(device):
    rng = np.random.default_rng(1)
    t = np.arange(4000) / 16000.0
    audio = (np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 3000 * t) + 0.05 * rng.standard_normal(4000))
    audio = audio.astype(np.float32)
    filters = _mel_filters(201, 40, 16000)
    expected = spectrogram(torch, "cpu", audio, filters).numpy()
    reference = spectrogram(torch, "cpu", audio.astype(np.float64), filters.astype(np.float64)).numpy()
    got = np.array(spectrogram(webtorch, device, audio, filters).tolist())
    assert got.shape == expected.shape == (40, 25)
    # within 1e-5 of the spectrogram's scale, as torch's own float32 result is of the float64 one
    scale = np.abs(reference).max()
    assert np.abs(expected - reference).max() / scale < 1e-5
    assert np.abs(got - expected).max() / scale < 1e-5


def test_istft_overlap_add_gathers_only_the_frames_reaching_each_sample(monkeypatch):
    """istft's overlap-add (fold, col2im) gathers per output sample only the frame taps that reach it:
    ceil(400 / 160) = 3 here, not all 400 (that gather made docs/complex.md's 16000-sample istft take minutes)."""
    from webtorch import _conv_ops
    gathered = []

    def take_along(x, dim, index):
        gathered.append(index.numel())
        return take(x, dim, index)

    take = _conv_ops._take_along
    monkeypatch.setattr(_conv_ops, "_take_along", take_along)
    audio = torch.randn(1600)
    window = torch.hann_window(400)
    spec = torch.stft(audio, 400, 160, window=window, return_complex=True)
    got = webtorch.istft(webtorch.tensor(spec.numpy()), 400, 160, window=webtorch.hann_window(400), length=1600)
    assert torch.allclose(torch.tensor(got.tolist()), torch.istft(spec, 400, 160, window=window, length=1600),
                          atol=1e-5)
    out_length = 400 + 160 * (spec.shape[1] - 1)
    assert gathered and max(gathered) <= out_length * 3, gathered


def test_col2im_taps_are_every_tap_reaching_an_input():
    """col2im's solved tap list (webtorch._conv_ops._taps_reaching) is the searched one: every k with
    t - k * dilation = i * stride, 0 <= i < in_size, for padded positions t (also before the input)."""
    import itertools
    from webtorch._conv_ops import _taps_reaching
    for t, kernel, stride, dilation, size in itertools.product(range(-2, 30), range(1, 7), range(1, 6), range(1, 5),
                                                               range(1, 6)):
        searched = [k for k in range(kernel) if t - k * dilation >= 0 and (t - k * dilation) % stride == 0
                    and (t - k * dilation) // stride < size]
        assert list(_taps_reaching(t, kernel, stride, dilation, size)) == searched, (t, kernel, stride, dilation)


def test_complex_to_real_warns_as_torch_and_backward_does_not():
    z = webtorch.tensor([1 + 2j, -3j])
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        assert z.float().tolist() == [1.0, 0.0]
    w = webtorch.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (w.to(webtorch.cfloat) * (1 + 1j)).imag.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


# A complex number written into a real tensor (c10's checked_convert): one with an imaginary part raises
# torch's RuntimeError (these wrote its real part, or raised TypeError); one without is its real part
COMPLEX_INTO_REAL = {
    "masked_fill": lambda T, x, m, v: x.masked_fill(m, v), "masked_fill-tensor": lambda T, x, m, v: x.masked_fill(
        m, T.tensor(v)), "masked_fill-int": lambda T, x, m, v: x.long().masked_fill(m, v),
    "fill_": lambda T, x, m, v: x.fill_(v), "setitem": lambda T, x, m, v: x.__setitem__(m, v) or x,
    "full": lambda T, x, m, v: T.full((2,), v, dtype=T.float32, device=x.device),
    "index_fill": lambda T, x, m, v: x.index_fill(0, T.tensor([1], device=x.device), v),
    "masked_fill-bool": lambda T, x, m, v: x.bool().masked_fill(m, v),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(COMPLEX_INTO_REAL))
@pytest.mark.parametrize("value", [1 + 1j, 2 + 0j])
def test_complex_value_into_a_real_tensor_as_torch(name, value, device):
    results = []
    for T in (torch, webtorch):
        x, m = T.tensor([1.0, -2.0, 3.0]), T.tensor([True, False, True])
        if T is webtorch:
            x, m = x.to(device), m.to(device)
        try:
            out = COMPLEX_INTO_REAL[name](T, x, m, value)
            results.append((str(out.dtype).split(".")[1], out.tolist()))
        except RuntimeError as e:
            results.append(str(e))
    assert results[1] == results[0]


@pytest.mark.parametrize("device", DEVICES)
def test_abs_gradient_at_zero_is_torchs(device):
    """torch's abs of a complex z has the gradient sgn(z): 0 at z = 0 (hypot's a / hypot(a, b) is 0/0)."""
    z = webtorch.tensor([0j, 3 + 4j], device=device, requires_grad=True)
    z.abs().sum().backward()
    assert np.allclose(z.grad.tolist(), [0j, 0.6 + 0.8j])
    x = webtorch.zeros(3, 2, device=device, requires_grad=True)
    (webtorch.view_as_complex(x).abs() ** 2).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0]] * 3


@pytest.mark.parametrize("n", [2, 8, 32, 512, 1024])
def test_power_of_two_fft_on_webgpu_is_stockham_within_float32_rounding(n, monkeypatch):
    """fft/ifft of a power-of-two length on webgpu run fft_stockham.wgsl (radix 4 while 4 divides, then 2),
    equal to the float64 transform within float32 rounding, along the last dim and along dim 0 (a moved,
    non-contiguous view), with torch's gradient."""
    from webtorch.backend import kernels
    passes = []
    monkeypatch.setattr(kernels, "fft_stockham", lambda make=kernels.fft_stockham: passes.append(1) or make())
    g = torch.Generator().manual_seed(n)
    x = torch.randn(3, n, dtype=torch.complex128, generator=g)
    pairs = webtorch.tensor(torch.view_as_real(x).tolist(), device="webgpu", requires_grad=n <= 32)
    z = webtorch.view_as_complex(pairs)
    for ours, theirs in ((webtorch.fft.fft(z), torch.fft.fft(x)),
                         (webtorch.fft.ifft(z.t(), dim=0, norm="ortho"), torch.fft.ifft(x.t(), dim=0, norm="ortho"))):
        got = torch.view_as_complex(torch.tensor(webtorch.view_as_real(ours).tolist(), dtype=torch.float64))
        assert ((got - theirs).abs().max() / theirs.abs().max()).item() < 1e-6  # float32's (torch's: ~1.5e-7)
    log2 = n.bit_length() - 1
    assert len(passes) == 2 * (log2 // 2 + log2 % 2)  # radix-4 passes and at most one of radix 2, per transform
    if n > 32:
        return
    weights = torch.linspace(-1, 2, 6 * n).reshape(3, n, 2)
    xt = x.to(torch.complex64).requires_grad_()
    (torch.view_as_real(torch.fft.fft(xt)) * weights).sum().backward()
    (webtorch.view_as_real(webtorch.fft.fft(z)) * webtorch.tensor(weights.tolist(), device="webgpu")).sum().backward()
    torch.testing.assert_close(torch.tensor(pairs.grad.tolist()), torch.view_as_real(xt.grad), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["mul", "add", "sub", "abs"])
def test_complex64_mul_add_sub_abs_are_one_kernel_on_webgpu(name):
    """complex_pairs.wgsl: one kernel over the interleaved pairs of contiguous complex64 tensors of one shape
    (the composed forms took up to 8), torch's values (zeros, inf/NaN, |z| beyond float32's square root) and
    torch's gradients (the rows complex_mul/add/sub/modulus)."""
    from webtorch.backend import gpu
    ops = {"mul": lambda x, y: x * y, "add": lambda x, y: x + y, "sub": lambda x, y: x - y,
           "abs": lambda x, y: x.abs()}
    g = torch.Generator().manual_seed(3)
    a, b = (torch.randn(64, dtype=torch.complex64, generator=g) for _ in range(2))
    a[0], a[1], a[2] = 0, complex(float("inf"), float("nan")), complex(3e30, 4e30)
    pa, pb = (webtorch.tensor(torch.view_as_real(t).tolist(), device="webgpu", requires_grad=True) for t in (a, b))
    wa, wb = webtorch.view_as_complex(pa), webtorch.view_as_complex(pb)
    before = gpu.runtime().kernels_dispatched
    out = ops[name](wa, wb)
    assert gpu.runtime().kernels_dispatched - before == 1
    expected = ops[name](a, b)
    got = torch.tensor((webtorch.view_as_real(out) if out.dtype.is_complex else out).tolist())
    torch.testing.assert_close(got, torch.view_as_real(expected) if expected.is_complex() else expected,
                               rtol=1e-6, atol=1e-6, equal_nan=True)
    ta, tb = (t[3:].clone().requires_grad_() for t in (a, b))  # gradients away from the edge values
    weights = torch.linspace(-1, 2, 61)
    result = ops[name](ta, tb)
    (torch.view_as_real(result).sum(-1) * weights if result.is_complex() else result * weights).sum().backward()
    result = ops[name](webtorch.view_as_complex(pa[3:]), webtorch.view_as_complex(pb[3:]))
    w = webtorch.tensor(weights.tolist(), device="webgpu")
    (webtorch.view_as_real(result).sum(-1) * w if result.dtype.is_complex else result * w).sum().backward()
    for ours, theirs in ((pa, ta), (pb, tb)):
        if theirs.grad is None:
            assert ours.grad is None or not ours.grad[3:].abs().sum().item()
            continue
        torch.testing.assert_close(torch.tensor(ours.grad[3:].tolist()), torch.view_as_real(theirs.grad), rtol=1e-5,
                                   atol=1e-5)

"""Complex-number cases (issue 24), registered into op_cases.CASES like more_op_cases (stdlib only: they
run in the browser too). Complex inputs are made from float32 inputs with a last dim of 2
(view_as_complex), so grad_cases differentiates every case through its float outputs (view_as_real, abs,
.real, ...) against torch: torch's conjugate-Wirtinger convention is checked that way."""
from op_cases import F32, I, I64, MM, RED, TRANS, case, error


def C(T, x):
    return T.view_as_complex(x)


def R(T, z):
    return T.view_as_real(z)


# -- making complex tensors and reading them back ---------------------------------------------
case("complex-create", lambda T, d, a, b: (
    T.tensor([1 + 2j, -3.5j, 2.0], device=d), T.tensor([[1, 2j], [0.5, 3]], device=d), T.zeros(2, 3, dtype=T.cfloat, device=d),
    T.ones(2, dtype=T.complex64, device=d), T.full((2,), 1 - 1j, device=d), T.complex(a, b), T.polar(a.abs(), b),
    R(T, T.complex(a, b)), T.tensor(2 + 1j, device=d).item(), T.tensor([1j, 2], device=d).tolist() == [1j, 2],
    T.complex(a, b).dtype == T.complex64, T.is_complex(T.complex(a, b)), T.complex(a, b).is_complex(),
    T.zeros(2, dtype=T.cfloat).element_size()),
    I((2, 3)), I((2, 3)))
case("complex-views", lambda T, d, x: (lambda z: (
    z, R(T, z), z.real, z.imag, z.shape, z.stride(), z.t().stride(), R(T, z.t()).stride(), z[1:, ::2], z[0, 1],
    z.transpose(0, 1).contiguous(), z.reshape(-1), z.flatten().view(3, 4), z.unsqueeze(0).expand(2, 3, 4),
    R(T, z[:, 1:]).storage_offset(), C(T, x[:, ::2]).stride(), z.real.stride(), z.imag.storage_offset()))(C(T, x)),
    I((3, 4, 2)))
case("complex-view-shares-memory", lambda T, d, x: (lambda z: (
    z.real.mul_(2), z.imag.add_(1), z, x.clone(), R(T, z).zero_() is not None, x))(C(T, x.detach().clone())), I((2, 3, 2)))
case("complex-conj-abs-angle", lambda T, d, x, r: (lambda z: (
    z.conj(), T.conj(z), z.conj_physical(), T.conj_physical(z), z.abs(), T.abs(z), z.angle(), T.angle(r), r.angle(),
    z.sgn(), T.sgn(z), z.is_conj(), z.conj().resolve_conj(), z.mH, z.mT, z.adjoint(), T.real(z), T.imag(z),
    T.real(r)))(C(T, x)),
    I((3, 4, 2)), I((5,), kind="values", values=[-2.0, 0.0, 3.0, -0.5, 1.0]), **TRANS)

# -- elementwise arithmetic, promotion with real operands -------------------------------------
case("complex-arith", lambda T, d, x, y, r, i: (lambda a, b: (
    a + b, a - b, a * b, a / b, -a, a + r, r * a, a / r, r / a, a * 2, 2 * a, a - 1.5, 3 / a, a + (1 - 2j),
    (0.5 + 1j) * a, a / (2 - 1j), a * i, i + a, (a + b).dtype == T.complex64, (a * i).dtype == T.complex64,
    (r * 1j).dtype == T.complex64, (i * 1j).dtype == T.complex64, T.result_type(r, 1j) == T.complex64,
    T.promote_types(T.complex64, T.float64) == T.complex128, T.add(a, b, alpha=2), T.sub(a, b, alpha=0.5),
    T.mul(a, b), T.div(a, b)))(C(T, x), C(T, y)),
    I((3, 4, 2)), I((4, 2), kind="uniform", low=0.5, high=2), I((3, 1)), I((4,), I64), **TRANS)
case("complex-unary", lambda T, d, x: (lambda a: (
    a.exp(), T.exp(a), a.log(), a.sqrt(), a ** 2, a ** 3, a ** -1, a ** 0.5, a ** 1.5, a.pow(2), a.reciprocal(),
    a.square(), a.sin(), a.cos(), a.rsqrt(), a ** (1 + 1j), 2 ** a))(C(T, x)),
    I((3, 4, 2), kind="uniform", low=0.2, high=2), atol=1e-4, rtol=1e-4)
case("complex-pow-tensor", lambda T, d, x, y: T.pow(C(T, x), C(T, y)),
     I((5, 2), kind="uniform", low=0.2, high=2), I((5, 2), kind="uniform", low=-1, high=1), atol=1e-4, rtol=1e-4)
case("complex-compare", lambda T, d, x: (lambda a: (
    a == a, a != a.conj(), T.eq(a, a * 1), a.isnan(), T.isinf(a), T.isfinite(a), T.where(a.real > 0, a, a.conj()),
    T.where(a.real > 0, a, 0.0)))(C(T, x)),
    I((3, 4, 2), kind="edge"))

# -- reductions, matmul ---------------------------------------------------------------------------
case("complex-reduce", lambda T, d, x: (lambda a: (
    a.sum(), a.sum(0), a.sum((0, 2), keepdim=True), a.mean(), a.mean(1), T.mean(a, -1, keepdim=True), a.prod(),
    a.prod(1), T.prod(a, 0, keepdim=True), a.sum(dtype=T.complex64)))(C(T, x)),
    I((3, 5, 4, 2), kind="uniform", low=0.5, high=1.2), **RED)
case("complex-matmul", lambda T, d, x, y, v, w: (lambda a, b, u, q: (
    a @ b, T.matmul(a, b), T.mm(a, b), u @ q, T.bmm(u, q), a @ C(T, v[0, 0]), T.einsum("ij,jk->ik", a, b),
    T.einsum("bij,bjk->bik", u, q), T.einsum("ij,ij->i", a, a), a.mT @ a.conj(), T.dot(a[0], a[1]),
    a[0] @ a[1]))(C(T, x), C(T, y), C(T, v), C(T, w)),
    I((3, 4, 2)), I((4, 5, 2)), I((2, 3, 4, 2)), I((2, 4, 3, 2)), **MM)

# -- joining, indexing, copying -------------------------------------------------------------------
case("complex-join-index", lambda T, d, x, y, i: (lambda a, b: (
    T.cat([a, b]), T.cat([a, b], 1), T.stack([a, b]), T.stack([a, b], -1), a[i], a[:, i], a[a.real > 0],
    a[i, 1:], a.flip(0), T.chunk(a, 2, 1), a.split(1), a.clone(), a.to(T.complex128).to(T.complex64),
    a.unbind(0), a.index_select(0, i), T.cat([a, a.real]).dtype == T.complex64))(C(T, x), C(T, y)),
    I((3, 4, 2)), I((3, 4, 2)), I((4,), I64, low=0, high=2))
case("complex-setitem", lambda T, d, x, y, i: (lambda a, b: (
    a.__setitem__((0, 1), 2 - 1j), a.__setitem__(1, b[2]), a.__setitem__((slice(None), 3), 5.0),
    a.__setitem__(i[:2], b[0]), a))(
        C(T, x.clone()), C(T, y)),
    I((3, 4, 2)), I((3, 4, 2)), I((4,), I64, low=0, high=2))
case("complex-cast", lambda T, d, x, r, i: (lambda a: (
    r.to(T.complex64), i.to(T.cfloat), r.type(T.complex64), T.complex(r, r).real.to(T.float32),
    a.to(T.complex64), T.zeros_like(a), T.ones_like(a), T.empty_like(a).shape, a.new_zeros(2).dtype == T.complex64,
    T.zeros(2, dtype=T.cfloat, device=d).new_ones(3)))(C(T, x)),
    I((2, 3, 2)), I((4,)), I((3,), I64))

# -- torch-style programs: rotary embeddings (gpt-fast / Llama) -------------------------------------
def _rotary(T, d, x, freqs):
    """Llama's apply_rotary_emb: x (b, t, h, hd) rotated by polar(1, t * freqs) through view_as_complex."""
    t = T.arange(x.shape[1], device=d, dtype=T.float32)
    cis = T.polar(T.ones(x.shape[1], freqs.shape[0], device=d), T.outer(t, freqs))
    xc = T.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    out = T.view_as_real(xc * cis.view(1, x.shape[1], 1, -1)).flatten(3)
    return out.type_as(x)


case("complex-rotary-embedding", _rotary, I((2, 5, 3, 8)), I((4,), kind="uniform", low=0.01, high=1), **TRANS)

error("complex-view_as_complex-last-dim", lambda T, d, x: T.view_as_complex(x), I((3, 3)))
error("complex-view_as_complex-stride", lambda T, d, x: T.view_as_complex(x.t()), I((2, 2)))
error("complex-view_as_real-real", lambda T, d, x: T.view_as_real(x), I((3, 2)))
error("complex-complex-dtypes", lambda T, d, x, i: T.complex(x, i), I((3,)), I((3,), I64))
error("complex-imag-real", lambda T, d, x: x.imag, I((3,)))

# -- torch.fft: lengths of every kind (direct matrices, four-step radices, Bluestein), norms, dims --------
FFT = dict(atol=1e-4, rtol=1e-4)


def _fft_1d(T, d, x, z):
    c = C(T, z)
    F = T.fft
    return (F.fft(x), F.fft(c), F.ifft(c), F.fft(c, n=7), F.ifft(x, n=40, dim=0), F.rfft(x), F.rfft(x, n=11),
            F.irfft(c), F.irfft(c, n=9), F.hfft(c), F.hfft(c, n=8), F.ihfft(x), F.fft(c, dim=0, norm="ortho"),
            F.ifft(c, norm="forward"), F.rfft(x, norm="ortho"), F.irfft(c, norm="forward"), F.fft(x[0]))


case("fft-1d", _fft_1d, I((3, 20)), I((3, 20, 2)), **FFT)
case("fft-lengths", lambda T, d, a, b, c, e: (T.fft.fft(a), T.fft.rfft(b), T.fft.ifft(C(T, c)), T.fft.fft(e),
                                              T.fft.irfft(T.fft.rfft(b), 134)),
     I((2, 128)), I((2, 134)), I((2, 67, 2)), I((1, 300)), **FFT)  # 64 x 2, 67 x 2 (Bluestein), 67, 60 x 5
case("fft-nd", lambda T, d, x, z: (lambda c: (
    T.fft.fft2(c), T.fft.ifft2(c), T.fft.fftn(c), T.fft.ifftn(c, s=(3, 5), dim=(0, 2)), T.fft.rfft2(x),
    T.fft.rfftn(x, s=(4, 6)), T.fft.irfft2(c), T.fft.irfftn(c, s=(3, 4, 7)), T.fft.fftn(x, dim=1),
    T.fft.hfft2(c), T.fft.ihfft2(x)))(C(T, z)),
    I((3, 4, 5)), I((3, 4, 5, 2)), **FFT)
case("fft-freq-shift", lambda T, d, x: (
    T.fft.fftfreq(7, device=d), T.fft.fftfreq(8, 0.25, device=d), T.fft.rfftfreq(9, 2.0, device=d),
    T.fft.fftshift(x), T.fft.ifftshift(x), T.fft.fftshift(x, dim=1), T.fft.ifftshift(x, dim=(0,)),
    T.fft.fftshift(T.fft.fftfreq(5, device=d))), I((3, 5)))
error("fft-norm", lambda T, d, x: T.fft.fft(x, norm="sideways"), I((4,)))
error("fft-n-zero", lambda T, d, x: T.fft.fft(x, n=0), I((4,)))
error("fft-rfft-complex", lambda T, d, x: T.fft.rfft(C(T, x)), I((4, 2)))

# -- windows and the short-time transform ---------------------------------------------------------------
case("windows", lambda T, d: tuple(
    getattr(T, name)(n, periodic, device=d) for name in ("hann_window", "hamming_window", "blackman_window",
                                                          "bartlett_window", "kaiser_window")
    for n in (0, 1, 2, 7, 16) for periodic in (True, False)) + (
    T.kaiser_window(9, False, 5.0, device=d), T.hamming_window(10, True, 0.5, 0.3, device=d)), atol=1e-6, rtol=1e-5)


def _stft(T, d, x):
    w = T.hann_window(48, device=d)
    s = T.stft(x, 64, hop_length=16, win_length=48, window=w, return_complex=True)
    return (s, T.stft(x, 32, window=T.hann_window(32, device=d), center=False, normalized=True, return_complex=True),
            T.stft(x[0], 32, window=T.ones(32, device=d), pad_mode="constant", onesided=False, return_complex=True),
            T.istft(s, 64, hop_length=16, win_length=48, window=w, length=300),
            T.istft(T.stft(x, 32, hop_length=8, window=T.hamming_window(32, device=d), return_complex=True), 32,
                    hop_length=8, window=T.hamming_window(32, device=d)))


case("stft-istft", _stft, I((2, 300)), atol=1e-4, rtol=1e-4)
error("stft-return-complex", lambda T, d, x: T.stft(x, 16, window=T.ones(16, device=d)), I((50,)))

"""Random numbers: a counter-based generator (Philox4x32-10) run on the device.

A Generator is a seed and an offset: element i of a draw is Philox(counter = offset + i, key =
seed), and the draw advances the offset by its size. So a seed gives the same numbers on every
run, on "webgpu" and on "cpu" alike (uniform bits exactly; normals up to float rounding), with
nothing kept on the device. The streams are not PyTorch's (its bits are not reproducible
across its own devices either); the distributions are.

Everything derives from one primitive, backend.random(kind, n, seed, offset): "uniform" [0, 1)
with 24 random bits, "normal" (Box-Muller) and raw "bits".
"""
import math

from . import _complex
from . import _deferred, _ops, _tape
from . import _dtypes as dt
from ._math_ops import cumsum, erfinv, lgamma, log1p, topk
from ._ops import _is_tensor, _shape_arg, _sized, cast
from ._tensor import _TYPE_NAMES, Tensor, backend, versions
from .backend import cpu

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
           "bernoulli", "poisson", "binomial", "normal", "multinomial"]

_DEFAULT_SEED = 67280421310721  # PyTorch's default seed


class Generator:
    def __init__(self, device="cpu"):
        self.device = _ops.device(device)
        self._seed, self.offset = _DEFAULT_SEED, 0

    def manual_seed(self, seed):
        self._seed, self.offset = int(seed) & 0xFFFFFFFFFFFFFFFF, 0
        return self

    def seed(self):
        import random
        self.manual_seed(random.getrandbits(63))
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return _ops.tensor([self._seed >> 32, self._seed & 0xFFFFFFFF, self.offset >> 32, self.offset & 0xFFFFFFFF],
                           dtype=dt.int64)

    def set_state(self, state):
        s_hi, s_lo, o_hi, o_lo = state.tolist()
        self._seed, self.offset = (s_hi << 32) | s_lo, (o_hi << 32) | o_lo
        return self

    def draw(self, kind, shape, device_type):
        """A new tensor of `shape` from the next numel() counters of this stream."""
        n = 1
        for s in shape:
            n *= s
        storage = backend(device_type).random(kind, n, self._seed, self.offset)
        if device_type != "meta":  # as torch's: a meta draw takes no numbers from the stream
            self.offset += n
        return Tensor(storage, shape)


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def _device_type(device):
    return _ops._device_type(device)


def _finish(t, dtype, requires_grad):
    if dtype is not None and dt.as_dtype(dtype) is not t.dtype:
        t = cast(t, dtype)
    t.requires_grad = requires_grad
    return t


def _float_dtype(dtype, name):
    if dtype is not None and not dt.as_dtype(dtype).is_floating_point:
        raise RuntimeError(f"\"{name}\" not implemented for '{_ops._tname(dt.as_dtype(dtype)).capitalize()}'")


def _complex_draw(kind, shape, generator, dtype, device, requires_grad):
    """A complex draw as torch's: the real and imaginary parts independent, each uniform on [0, 1) (rand)
    or normal with variance 1/2 (randn: |z|^2 has mean 1)."""
    pairs = (generator or default_generator).draw(kind, tuple(shape) + (2,), _device_type(device))
    if kind == "normal":
        pairs = _ops.mul(pairs, math.sqrt(0.5))
    return _finish(_complex.view_as_complex(cast(pairs, dt.REAL_OF[dt.as_dtype(dtype)])), None, requires_grad)


def rand(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    if dtype is not None and dt.as_dtype(dtype).is_complex:
        return _complex_draw("uniform", _sized(sizes, size), generator, dtype, device, requires_grad)
    _float_dtype(dtype, "check_uniform_bounds")
    t = (generator or default_generator).draw("uniform", _sized(sizes, size), _device_type(device))
    return _finish(t, dtype, requires_grad)


def randn(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    if dtype is not None and dt.as_dtype(dtype).is_complex:
        return _complex_draw("normal", _sized(sizes, size), generator, dtype, device, requires_grad)
    _float_dtype(dtype, "normal_kernel_cpu")
    t = (generator or default_generator).draw("normal", _sized(sizes, size), _device_type(device))
    return _finish(t, dtype, requires_grad)


def randint(*args, low=None, high=None, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """randint(high, size) or randint(low, high, size), positional or by keyword: uniform integers in
    [low, high)."""
    args = list(args)
    if size is None:
        size = args.pop()
    if high is None:
        high = args.pop()
    if low is None:
        low = args.pop() if args else 0
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    u = (generator or default_generator).draw("uniform", _shape_arg(size), _device_type(device))
    # 24 random bits per value: unbiased enough below 2**24 values; the clamp guards f32 rounding
    values = _ops.clamp(_ops.floor(_ops.add(_ops.mul(u, high - low), low)), max=high - 1)
    return _finish(cast(values, dtype or dt.int64), None, requires_grad)


def randperm(n, generator=None, dtype=None, device=None, requires_grad=False):
    """The order that sorts n random 32-bit keys (ties, at 2**-32, keep index order)."""
    keys = (generator or default_generator).draw("bits", (n,), _device_type(device))
    order = Tensor(backend(keys.device.type).sort(keys, False)[1], (n,))
    return _finish(cast(order, dtype or dt.int64), None, requires_grad)


def rand_like(input, dtype=None, device=None, requires_grad=False):
    return rand(*input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False):
    return randn(*input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, dtype=None, device=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=device or input.device,
                   requires_grad=requires_grad)


def bernoulli(input, p=None, generator=None):
    """1 with probability p (input's values when p is None), else 0; input's dtype."""
    prob = input if p is None else p
    u = (generator or default_generator).draw("uniform", tuple(input.shape), input.device.type)
    return cast(_ops.lt(u, prob), input.dtype)


def _until_accepted(gen, shape, device_type, active, step, rounds_per_check=4):
    """Rounds of a vectorised sampler: step(active, draw) -> the elements still active; each round draws
    uniforms for every element from the generator (the finished ones' unused), until none is active
    (read back every few rounds: a round with none active changes nothing)."""
    while bool(_ops.any(active)):
        for _ in range(rounds_per_check):
            active = step(active, lambda: gen.draw("uniform", shape, device_type))


def poisson(input, generator=None):
    """A Poisson draw per rate in input, torch's algorithms: for a rate below 10 Knuth's product of uniforms,
    else Hormann's transformed rejection (PTRS). The gradient is zero, as torch's."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"poisson_cpu" not implemented for \'{_TYPE_NAMES[input.dtype.name]}\'')
    gen, shape, device_type = generator or default_generator, tuple(input.shape), input.device.type
    lam = _ops.cast(input.detach(), dt.float32)
    if input.numel() and not bool(_ops.all(_ops.logical_and(_ops.ge(lam, 0), _ops.lt(lam, math.inf)))):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative (and finite)")
    count = _ops.zeros_like(lam)
    product = _ops.ones_like(lam)
    limit = _ops.exp(_ops.neg(lam))

    def knuth(active, uniform):
        nonlocal product, count
        product = _ops.where(active, _ops.mul(product, uniform()), product)
        active = _ops.logical_and(active, _ops.gt(product, limit))
        count = _ops.add(count, cast(active, dt.float32))
        return active
    _until_accepted(gen, shape, device_type, _ops.logical_and(_ops.gt(lam, 0), _ops.lt(lam, 10)), knuth)

    big = _ops.where(_ops.ge(lam, 10), lam, 10.0)  # PTRS's constants (from 10: the small rates' are unused)
    slam, loglam = _ops.sqrt(big), _ops.log(big)
    b = _ops.add(_ops.mul(slam, 2.53), 0.931)
    a = _ops.add(_ops.mul(b, 0.02483), -0.059)
    log_invalpha = _ops.log(_ops.add(_ops.div(1.1328, _ops.sub(b, 3.4)), 1.1239))
    vr = _ops.sub(0.9277, _ops.div(3.6224, _ops.sub(b, 2)))

    def ptrs(active, uniform):
        nonlocal count
        U, V = _ops.sub(uniform(), 0.5), uniform()
        us = _ops.sub(0.5, _ops.abs(U))
        k = _ops.floor(_ops.add(_ops.mul(_ops.add(_ops.div(_ops.mul(a, 2), us), b), U), _ops.add(big, 0.43)))
        quick = _ops.logical_and(_ops.ge(us, 0.07), _ops.le(V, vr))
        rejected = _ops.logical_or(_ops.lt(k, 0), _ops.logical_and(_ops.lt(us, 0.013), _ops.gt(V, us)))
        log_ratio = _ops.sub(_ops.add(_ops.log(V), log_invalpha), _ops.log(_ops.add(_ops.div(a, _ops.mul(us, us)), b)))
        target = _ops.sub(_ops.sub(_ops.mul(k, loglam), big), lgamma(_ops.add(_ops.where(_ops.lt(k, 0), 0.0, k), 1)))
        accept = _ops.logical_and(active, _ops.logical_or(
            quick, _ops.logical_and(_ops.logical_not(rejected), _ops.le(log_ratio, target))))
        count = _ops.where(accept, k, count)
        return _ops.logical_and(active, _ops.logical_not(accept))
    _until_accepted(gen, shape, device_type, _ops.ge(lam, 10), ptrs)
    count = cast(count, input.dtype)
    return _ops.add(count, _ops.mul(input, 0)) if input.requires_grad and _tape.is_grad_enabled() else count


# log k! minus Stirling's approximation of it, k = 0..9 (from 10: the series below)
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    table = _ops.tensor(_STIRLING_TAIL, device=k.device)
    small = table[_ops.cast(_ops.clamp(k, 0, 9), dt.int64)]
    k1sq = _ops.square(_ops.add(k, 1))
    series = _ops.div(_ops.sub(1 / 12, _ops.div(_ops.sub(1 / 360, _ops.div(1 / 1260, k1sq)), k1sq)), _ops.add(k, 1))
    return _ops.where(_ops.le(k, 9), small, series)


def binomial(count, prob, generator=None):
    """A Binomial(count, prob) draw per element, torch's algorithms on the smaller of prob and 1 - prob: below
    a mean of 10 inversion (counting geometric gaps until they pass count), else Kachitvichyanukul and
    Schmeiser's BTRS transformed rejection; vectorised in rounds like poisson. prob NaN gives NaN (count > 0)."""
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{_ops._tname(t.dtype).capitalize()}")
    n, p = _ops.broadcast_tensors(_ops.cast(count.detach(), dt.float32), _ops.cast(prob.detach(), dt.float32))
    gen, shape, device_type = generator or default_generator, tuple(n.shape), n.device.type
    flip = _ops.gt(p, 0.5)
    q = _ops.where(flip, _ops.sub(1, p), p)
    live = _ops.logical_and(_ops.gt(n, 0), _ops.logical_and(_ops.gt(q, 0), _ops.lt(p, 1)))
    mean = _ops.mul(n, q)
    drawn = _ops.zeros_like(n)

    gaps = _ops.zeros_like(n)
    log_q = log1p(_ops.neg(q))

    def inversion(active, uniform):
        nonlocal gaps, drawn
        gaps = _ops.add(gaps, _ops.where(active, _ops.ceil(_ops.div(_ops.log(uniform()), log_q)), 0.0))
        active = _ops.logical_and(active, _ops.le(gaps, n))
        drawn = _ops.add(drawn, cast(active, dt.float32))
        return active
    _until_accepted(gen, shape, device_type, _ops.logical_and(live, _ops.lt(mean, 10)), inversion)

    big_q = _ops.where(_ops.ge(mean, 10), q, 0.5)  # BTRS's constants (the others' are unused)
    stddev = _ops.sqrt(_ops.mul(_ops.mul(n, big_q), _ops.sub(1, big_q)))
    b = _ops.add(_ops.mul(stddev, 2.53), 1.15)
    a = _ops.add(_ops.add(_ops.mul(b, 0.0248), _ops.mul(big_q, 0.01)), -0.0873)
    c = _ops.add(_ops.mul(n, big_q), 0.5)
    v_r = _ops.sub(0.92, _ops.div(4.2, b))
    r = _ops.div(big_q, _ops.sub(1, big_q))
    alpha = _ops.mul(_ops.add(_ops.div(5.1, b), 2.83), stddev)
    m = _ops.floor(_ops.mul(_ops.add(n, 1), big_q))
    mode_terms = _ops.add(_ops.add(_ops.mul(_ops.add(m, 0.5), _ops.log(_ops.div(_ops.add(m, 1), _ops.mul(r, _ops.add(_ops.sub(n, m), 1))))),
                                   _stirling_tail(m)), _stirling_tail(_ops.sub(n, m)))

    def btrs(active, uniform):
        nonlocal drawn
        U, V = _ops.sub(uniform(), 0.5), uniform()
        us = _ops.sub(0.5, _ops.abs(U))
        k = _ops.floor(_ops.add(_ops.mul(_ops.add(_ops.div(_ops.mul(a, 2), us), b), U), c))
        sensible = _ops.logical_and(_ops.ge(k, 0), _ops.le(k, n))
        quick = _ops.logical_and(_ops.ge(us, 0.07), _ops.le(V, v_r))
        kc = _ops.where(sensible, k, 0.0)  # keeps the logs below finite where k is rejected anyway
        log_v = _ops.log(_ops.div(_ops.mul(V, alpha), _ops.add(_ops.div(a, _ops.mul(us, us)), b)))
        bound = _ops.add(mode_terms, _ops.add(
            _ops.mul(_ops.add(n, 1), _ops.log(_ops.div(_ops.add(_ops.sub(n, m), 1), _ops.add(_ops.sub(n, kc), 1)))),
            _ops.mul(_ops.add(kc, 0.5), _ops.log(_ops.div(_ops.mul(r, _ops.add(_ops.sub(n, kc), 1)), _ops.add(kc, 1))))))
        bound = _ops.sub(bound, _ops.add(_stirling_tail(kc), _stirling_tail(_ops.sub(n, kc))))
        accept = _ops.logical_and(_ops.logical_and(active, sensible), _ops.logical_or(quick, _ops.le(log_v, bound)))
        drawn = _ops.where(accept, k, drawn)
        return _ops.logical_and(active, _ops.logical_not(accept))
    _until_accepted(gen, shape, device_type, _ops.logical_and(live, _ops.ge(mean, 10)), btrs)

    drawn = _ops.where(_ops.isnan(p), math.nan, _ops.where(flip, _ops.sub(n, drawn), drawn))
    drawn = _ops.where(_ops.logical_or(_ops.le(n, 0), _ops.le(p, 0)), 0.0, drawn)  # before NaN, as torch
    return cast(drawn, count.dtype)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None):
    tensors = [x for x in (mean, std) if _is_tensor(x)]
    if tensors:
        shape = _ops.broadcast_shapes(*[t.shape for t in tensors])
        device = tensors[0].device
    else:
        shape = _shape_arg(size if isinstance(size, (tuple, list)) else (size,))
    if _is_tensor(std) and _ops.any(_ops.lt(std, 0)).item() or not _is_tensor(std) and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std if not _is_tensor(std) else '< 0'}")
    z = (generator or default_generator).draw("normal", tuple(shape), _device_type(device))
    return _finish(_ops.add(_ops.mul(z, std), mean), dtype, False)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Rows of category weights -> sampled indices. With replacement: inverse CDF (count of
    cumulative weights at or below a uniform draw scaled to the row total); without: the
    num_samples largest log(u) / weight keys (Efraimidis-Spirakis), i.e. a topk."""
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_ops._tname(input.dtype).capitalize()}")
    probs = input if input.dim() == 2 else _ops.unsqueeze(input, 0)
    rows, n = probs.shape
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    bad = _ops.logical_or(_ops.logical_not(_ops.isfinite(probs)), _ops.lt(probs, 0))
    totals = _ops.sum(probs, -1, keepdim=True)
    check = _ops.stack([_ops.any(bad), _ops.any(_ops.le(totals, 0))]).tolist()
    if check[0]:
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if check[1]:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = generator or default_generator
    device = probs.device.type
    if replacement:
        cdf = cumsum(probs, -1)
        u = _ops.mul(gen.draw("uniform", (rows, num_samples), device), totals)
        picked = _ops.sum(_ops.le(_ops.unsqueeze(cdf, 1), _ops.unsqueeze(u, 2)), -1)
        # a draw that rounds up to the row total must not land past the last nonzero weight
        last = _ops.amax(_ops.where(_ops.gt(probs, 0), _ops.arange(n, device=device), -1), -1, keepdim=True)
        samples = _ops.minimum(picked, last)
    else:
        u = gen.draw("uniform", (rows, n), device)
        keys = _ops.div(_ops.log(_ops.add(u, 2.0 ** -25)), probs)  # log(0) avoided; weight 0 -> -inf
        samples = topk(keys, num_samples, -1).indices
    samples = cast(samples, dt.int64)
    return samples if input.dim() == 2 else _ops.squeeze(samples, 0)


# -- in-place fills --------------------------------------------------------------------------
def _fill_from(x, values):
    _ops.write_(x, values)
    return x


class _Draw:
    """x's values as fn(a draw of `kind` at the stream's (seed, offset)) in x's dtype, made when first
    read or on the device x is copied to (_deferred)."""
    __slots__ = ("kind", "n", "seed", "offset", "fn", "dtype")

    def __init__(self, kind, n, seed, offset, fn, dtype):
        self.kind, self.n, self.seed, self.offset, self.fn, self.dtype = kind, n, seed, offset, fn, dtype

    def tensor(self, device_type):
        z = Tensor(backend(device_type).random(self.kind, self.n, self.seed, self.offset), (self.n,))
        with _tape.no_grad():
            return cast(self.fn(z), self.dtype)

    def values(self):
        return self.tensor("cpu")._storage.data


def _fill_drawn(x, kind, fn, generator):
    """x = fn(the next draw of x.numel() numbers of `kind`) in place."""
    gen = generator or default_generator
    if _deferred.deferrable(x):
        n = x._storage.numel
        cpu.defer(x._storage, _Draw(kind, n, gen._seed, gen.offset, fn, x.dtype))
        gen.offset += n
        versions(x).version += 1
        return x
    return _fill_from(x, fn(gen.draw(kind, tuple(x.shape), x.device.type)))


def uniform_(x, a=0.0, b=1.0, generator=None):
    return _fill_drawn(x, "uniform", lambda u: _ops.add(_ops.mul(u, b - a), a), generator)


def normal_(x, mean=0.0, std=1.0, generator=None):
    return _fill_drawn(x, "normal", lambda z: _ops.add(_ops.mul(z, std), mean), generator)


def trunc_normal_(x, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """torch.nn.init's method: a uniform draw between the normal CDF's values at a and b, through the
    inverse CDF (erfinv), clamped to [a, b] against rounding."""
    def cdf(v):
        return (1.0 + math.erf(v / math.sqrt(2.0))) / 2.0
    lo, hi = 2 * cdf((a - mean) / std) - 1, 2 * cdf((b - mean) / std) - 1
    return _fill_drawn(x, "uniform", lambda u: _ops.clamp(_ops.add(_ops.mul(
        erfinv(_ops.add(_ops.mul(u, hi - lo), lo)), std * math.sqrt(2.0)), mean), a, b), generator)


def bernoulli_(x, p=0.5, generator=None):
    return _fill_from(x, bernoulli(x, p, generator))


def random_(x, from_=0, to=None, generator=None):
    if to is None:
        from_, to = 0, (from_ if from_ else (1 << 24 if x.dtype.is_floating_point else 2 ** 31 - 1))
    return _fill_from(x, randint(from_, to, tuple(x.shape), generator=generator, device=x.device))


def exponential_(x, lambd=1.0, generator=None):
    u = (generator or default_generator).draw("uniform", tuple(x.shape), x.device.type)
    return _fill_from(x, _ops.div(_ops.neg(log1p(_ops.neg(u))), lambd))


Tensor.uniform_, Tensor.normal_, Tensor.bernoulli_, Tensor.random_, Tensor.exponential_ = \
    uniform_, normal_, bernoulli_, random_, exponential_
Tensor.bernoulli = bernoulli
Tensor.multinomial = multinomial

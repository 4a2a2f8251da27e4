"""Tensor: a strided view (shape, stride, storage offset) of a storage on one device.

Views share storage and never launch a kernel. Math lives in _ops.py, which attaches the
methods; this module holds the layout, creation, device transfer and readback.
"""
import gc
import math

from . import _dtypes as dt
from .backend import complex as complex_storage, cpu, meta


class Size(tuple):
    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return f"{type(self).__module__.split('.')[0]}.Size({list(self)})"

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r


# The device types torch.device accepts. Only "cpu", "webgpu" and "meta" hold tensors here: the others
# parse (scripts write torch.device("cuda" if ... else "cpu")) and raise torch's error when used.
_TORCH_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
                       "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_TYPES = ("cpu", "webgpu") + _TORCH_DEVICE_TYPES[1:]


class device:
    __slots__ = ("type", "index")

    def __init__(self, spec, index=None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index
        if isinstance(spec, int) and not isinstance(spec, bool):  # torch.device(0): cuda:0 in torch
            spec, index = "cuda", spec
        spec = str(spec)
        if ":" in spec:
            spec, idx = spec.split(":", 1)
            index = int(idx)
        if spec not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: "
                               f"{spec}")
        self.type, self.index = spec, index

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, ValueError):
                return False
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type

    def __hash__(self):
        return hash(self.type)

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    # `with torch.device("webgpu"):` (the default device in the block): __enter__/__exit__ attached by _ops.py


_BACKENDS = {"cpu": cpu, "meta": meta}


def backend(device_type):
    """The primitives of a device type (the webgpu one is imported on first use)."""
    module = _BACKENDS.get(device_type)
    if module is None:
        if device_type != "webgpu":
            raise _unsupported_device(device_type)
        from .backend import gpu
        module = _BACKENDS[device_type] = gpu
    return module


def _unsupported_device(device_type):
    """torch's error for a device type its build lacks (the CPU wheel's, for CUDA and XPU)."""
    if device_type in ("cuda", "xpu"):
        return AssertionError(f"Torch not compiled with {device_type.upper()} enabled (webtorch runs on "
                              "\"webgpu\" and \"cpu\")")
    return RuntimeError(f"PyTorch is not linked with support for {device_type} devices (webtorch runs on "
                        "\"webgpu\" and \"cpu\")")


def contiguous_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


# Tensor.__init__'s defaults, by position: a legacy call's arguments are those before the trailing defaults
_LEGACY_UNGIVEN = (None, None, None, None, False)


class VersionCounter:
    """Counts in-place writes (autograd refuses to use a saved tensor written since it was saved)."""
    __slots__ = ("version",)

    def __init__(self):
        self.version = 0


def versions(t):
    """The counter of t's in-place writes: its storage's, shared by its views and detach() as in torch,
    except for a tensor made by .data (and its views), which counts apart."""
    root = t._base if t._base is not None else t
    own = root._own_versions
    return t._storage if own is None else own


class Tensor:
    __array_priority__ = 1000  # numpy scalars defer to our reflected operators
    # The layout and autograd fields as slots: a tensor's __dict__ holds only what code sets on it, empty
    # as torch's (accelerate's init_empty_weights rebuilds a Parameter as cls(p.to("meta"), **p.__dict__)).
    __slots__ = ("_storage", "shape", "_stride", "_offset", "dtype", "grad_fn", "_base", "_requires_grad", "grad",
                 "_own_versions", "__dict__", "__weakref__")

    def __init__(self, storage=None, shape=None, stride=None, offset=None, requires_grad=False, *sizes, device=None):
        if shape.__class__ is not Size:
            if shape is None or shape.__class__ is int:  # torch's legacy constructor: torch.Tensor(2, 3), ([1, 2])
                given = [storage, shape, stride, offset, requires_grad, *sizes]
                while not sizes and given and given[-1] is _LEGACY_UNGIVEN[len(given) - 1]:
                    given.pop()
                new = self._legacy_new(given, device)  # attached by _tensor_types.py
                Tensor.__init__(self, new._storage, new.shape, new._stride, new._offset)
                return
            shape = Size(shape)
        self._storage = storage
        self.shape = shape
        self._stride = contiguous_strides(shape) if stride is None else \
            stride if stride.__class__ is tuple else tuple(stride)
        self._offset = 0 if offset is None else offset
        self.dtype = storage.dtype
        self.grad_fn = None  # the autograd Node that produced this tensor; None for leaves
        self._base = None  # for a view: the tensor it views (in-place writes rebase its history)
        self._own_versions = None  # a .data tensor's own version counter (versions() below)
        self._requires_grad = False
        if requires_grad:
            self.requires_grad = True
        self.grad = None

    # -- autograd -----------------------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value and self.dtype.category < 2:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if not value and self.grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad=True):
        Tensor.requires_grad.fset(self, requires_grad)  # (not through a subclass's own requires_grad property)
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    # register_hook, retain_grad, retains_grad and backward: attached by autograd.py

    @property
    def _version(self):
        return versions(self).version

    @property
    def data(self):
        """The same storage outside autograd, with a version counter of its own (as torch's): writes
        through it (and its views) are not seen by the saved-tensor check of self's graph; torchdiffeq
        fills its Runge-Kutta scratch tensor this way."""
        t = Tensor(self._storage, self.shape, self._stride, self._offset)
        t._own_versions = VersionCounter()
        return t

    @data.setter
    def data(self, other):  # (the slots themselves: a subclass may define shape or dtype as properties)
        for name in ("_storage", "shape", "_stride", "_offset", "dtype"):
            _SLOT[name].__set__(self, _SLOT[name].__get__(other))

    # -- layout -------------------------------------------------------------------------------
    @property
    def device(self):
        return device(self._storage.device_type, 0 if self._storage.device_type == "webgpu" else None)

    is_cuda = is_xpu = is_mps = property(lambda self: False)

    @property
    def is_cpu(self):
        return self._storage.device_type == "cpu"

    @property
    def is_meta(self):
        return self._storage.device_type == "meta"

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return len(self.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[_wrap_dim(dim, self.dim())]

    def stride(self, dim=None):
        return self._stride if dim is None else self._stride[_wrap_dim(dim, self.dim())]

    def storage_offset(self):
        return self._offset

    def numel(self):
        return self.shape.numel()

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def is_contiguous(self):
        if self.numel() == 0:
            return True
        expected = 1
        for size, stride in zip(reversed(self.shape), reversed(self._stride)):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def _view(self, shape, stride, offset=None):
        if len(shape) > MAX_DIMS:
            _too_many_dims(shape)
        view = Tensor(self._storage, shape, stride, self._offset if offset is None else offset)
        view._base = self._base if self._base is not None else self
        return view

    # -- transfers and readback ---------------------------------------------------------------
    def to(self, *args, **kwargs):
        target_device, target_dtype = to_targets(args, kwargs)
        t = self
        if target_dtype is not None and target_dtype is not t.dtype:
            t = t._cast(target_dtype)  # attached by _ops.py
        if target_device is not None and target_device.type != t.device.type:
            t = t._move(target_device.type)  # attached by _ops.py (autograd)
        return t

    def cpu(self):
        return self.to("cpu")

    def webgpu(self):
        return self.to("webgpu")

    def cuda(self, device=None, non_blocking=False):
        raise _unsupported_device("cuda")

    def float(self):
        return self.to(dt.float32)

    def half(self):
        return self.to(dt.float16)

    def double(self):
        return self.to(dt.float64)

    def bfloat16(self):
        return self.to(dt.bfloat16)

    def int(self):
        return self.to(dt.int32)

    def long(self):
        return self.to(dt.int64)

    def short(self):
        return self.to(dt.int16)

    def char(self):
        return self.to(dt.int8)

    def byte(self):
        return self.to(dt.uint8)

    def bool(self):
        return self.to(dt.bool_)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "torch." + _TYPE_NAMES[self.dtype.name] + "Tensor"
        if isinstance(dtype, str):  # torch's type names: "torch.FloatTensor", "torch.cuda.LongTensor"
            kind = dtype.rsplit(".", 1)[-1]
            names = {name + "Tensor": d for d, name in _TYPE_NAMES.items()}
            if not dtype.startswith("torch.") or kind not in names:
                raise ValueError(f"invalid type: '{dtype}'")
            if ".cuda." in dtype:
                raise _unsupported_device("cuda")
            return self.to(dt.BY_NAME[names[kind]])
        return self.to(getattr(dtype, "dtype", dtype))  # a dtype, or a legacy class (torch.FloatTensor)

    def type_as(self, other):
        """self with other's dtype and on other's device (torch's self.type(other.type()), whose type names
        carry the device: `torch.zeros(n).type_as(x)` puts the zeros where x is)."""
        return self.to(other.device, other.dtype)

    def _host_values(self):
        """The elements, row-major, as an array.array (synchronous readback on webgpu); a complex
        tensor's as interleaved (real, imaginary) pairs."""
        t = self.contiguous()
        return _to_host(t._storage, t._offset, t.numel())

    async def _host_values_async(self):
        t = self.contiguous()
        if t._storage.device_type != "webgpu":
            return _to_host(t._storage, t._offset, t.numel())
        from .backend import gpu
        storage, offset, numel = _real_span(t._storage, t._offset, t.numel())
        return await gpu.to_host_async(storage, offset, numel)

    def _nest(self, values):
        """values (an array.array, row-major) as nested lists. No Python code runs per element (1M
        floats take ~10 ms in Pyodide, not ~400): array.tolist, then zip/map group the rows at C speed."""
        if 0 in self.shape:
            return _empty_nested(self.shape)
        flat = values.tolist()
        if self.dtype is dt.bool_:
            flat = list(map(bool, flat))
        elif self.dtype.is_complex:
            flat = list(map(complex, flat[::2], flat[1::2]))
        if not self.shape:
            return flat[0]
        if len(self.shape) > 1:
            collecting = gc.isenabled()
            gc.disable()  # many new lists, no cycles: the collector would otherwise scan them ~4x over
            try:
                for size in reversed(self.shape[1:]):
                    flat = list(map(list, zip(*[iter(flat)] * size)))
            finally:
                if collecting:
                    gc.enable()
        return flat

    def tolist(self):
        return self._nest(self._host_values())

    async def tolist_async(self):
        return self._nest(await self._host_values_async())

    def _check_scalar(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")

    # The one element sits at the storage offset whatever the shape and strides: item reads it there
    # (no view, no copy kernel; a view made through the ops cost more than the GPU's round trip).
    def item(self):
        self._check_scalar()
        if self._storage.device_type == "meta":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return self._scalar(_to_host(self._storage, self._offset, 1))

    async def item_async(self):
        self._check_scalar()
        if self._storage.device_type != "webgpu":
            return self.item()
        return self._scalar(await backend("webgpu").to_host_async(*_real_span(self._storage, self._offset, 1)))

    def _scalar(self, values):
        if self.dtype.is_complex:
            return complex(values[0], values[1])
        return bool(values[0]) if self.dtype is dt.bool_ else values[0]

    async def cpu_async(self):
        return _from_host_values(await self._host_values_async(), self.shape, self.dtype, "cpu", exact=True)

    def numpy(self, *, force=False):
        """A numpy array sharing this cpu tensor's memory, as PyTorch's (float16, kept as float32 on the
        host, comes as a float16 copy). force=True: a copy of any tensor, detached, moved to the cpu."""
        if force:
            return self.detach().cpu().clone().numpy()
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self.device.type != "cpu":
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. "
                            "Use Tensor.cpu() to copy the tensor to host memory first.")
        if not cpu.USE_NUMPY:
            raise RuntimeError("Numpy is not available")
        if self.dtype.is_complex:  # the pairs' memory read as numpy's complex (shared, as torch's)
            real = Tensor(self._storage.real, self.shape + (2,), tuple(2 * s for s in self._stride) + (1,),
                          2 * self._offset)
            return real.numpy().view(cpu._np.dtype(self.dtype.name))[..., 0]
        if self.dtype not in cpu.NUMPY_DTYPE:
            raise TypeError(f"Got unsupported ScalarType {_TYPE_NAMES[self.dtype.name]}")
        a = cpu._ndarray(self)
        return a.astype(cpu.NUMPY_DTYPE[self.dtype]) if self.dtype in dt.ROUNDED else a

    async def numpy_async(self):
        return (await self.cpu_async()).numpy()

    # pickle and copy.deepcopy: the values cross through the host (a webgpu storage holds GPU handles)
    def __reduce_ex__(self, proto):
        if self._storage.device_type == "meta":  # no values: the same shape and dtype, on meta
            return _rebuild, (self._storage.numel, tuple(self.shape), self.dtype.name, "meta", self.requires_grad,
                              self.grad, tuple(self._stride), self._offset)
        return _rebuild, (self._host_values(), tuple(self.shape), self.dtype.name, self._storage.device_type,
                          self.requires_grad, self.grad)

    def __format__(self, spec):
        if self.dim() == 0 and self._storage.device_type != "meta":  # like torch: a 0-d tensor formats as its number
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.category != 1 or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter([self[i] for i in range(self.shape[0])])

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        return _format(self, tensor_contents)

    def __array__(self, dtype=None, copy=None):
        if self.requires_grad:  # as torch's: numpy would drop the graph silently
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        a = self.detach().cpu().numpy()
        return a if dtype is None else a.astype(dtype)


_SLOT = {name: Tensor.__dict__[name] for name in Tensor.__slots__}

_TYPE_NAMES = {"float32": "Float", "float16": "Half", "bfloat16": "BFloat16", "float64": "Double", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _real_span(storage, offset, numel):
    """(storage, offset, numel) of the real elements that hold these: a complex storage's pairs."""
    if storage.dtype.is_complex:
        return storage.real, 2 * offset, 2 * numel
    return storage, offset, numel


def _to_host(storage, offset, numel):
    """The elements [offset, offset + numel) as an array.array (a complex storage's as their pairs)."""
    storage, offset, numel = _real_span(storage, offset, numel)
    return backend(storage.device_type).to_host(storage, offset, numel)


def to_targets(args, kwargs):
    """Tensor.to's arguments as (device or None, dtype or None): a tensor gives both, a str or device
    the device, a dtype (or bool/int/float) the dtype."""
    target_device, target_dtype = None, None
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            target_device, target_dtype = a.device, a.dtype
        elif isinstance(a, (str, device)):
            target_device = device(a)
        elif isinstance(a, dt.dtype) or a in (bool, int, float):
            target_dtype = dt.as_dtype(a)
    return target_device, target_dtype


def _empty_nested(shape):
    if len(shape) == 1:
        return []
    return [_empty_nested(shape[1:]) for _ in range(shape[0])]


def _wrap_dim(dim, ndim, scalar_ok=True):
    """dim in [0, ndim). A 0-d tensor takes dim -1 or 0 where torch allows it (reductions, views);
    ops that need a real dim pass scalar_ok=False and raise like torch."""
    if ndim == 0 and not scalar_ok:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _transfer(t, device_type):
    """t's values copied to a new tensor on device_type (onto "meta": its shape and dtype only)."""
    if device_type == "meta":
        return _empty(t.shape, t.dtype, device_type)
    backend(device_type)  # an unsupported device raises before any readback
    deferred = getattr(t._storage, "deferred", None)  # cpu values not computed yet: made there instead
    if deferred is not None and t._offset == 0 and t.numel() == t._storage.numel and t.is_contiguous():
        return deferred.tensor(device_type).reshape(t.shape)
    return _from_host_values(t._host_values(), t.shape, t.dtype, device_type, exact=True)


def _rebuild(values, shape, dtype_name, device_type, requires_grad, grad, stride=None, offset=0):
    """A pickled tensor back (Tensor.__reduce_ex__); a meta one comes as its storage's size, stride and
    offset in place of values."""
    dtype = dt.BY_NAME[dtype_name]
    if device_type == "meta":
        out = Tensor(meta.empty(dtype, values), shape, stride, offset)
    else:
        out = _from_host_values(values, shape, dtype, device_type)
    out.requires_grad = requires_grad
    out.grad = grad
    return out


def _from_host_values(values, shape, dtype, device_type, exact=False):
    """A new contiguous tensor from an array.array (of dtype's typecode; a complex dtype's: its real
    dtype's, the pairs interleaved) on device_type. exact: the values of a tensor of dtype (read back),
    not rounded to float16/bfloat16 again."""
    if dtype.is_complex:
        return Tensor(complex_storage.from_host(backend(device_type), dtype, values), shape)
    return Tensor(backend(device_type).from_host(dtype, values, exact), shape)


# numpy's limit (the cpu device's arrays; docs/limits.md); torch's reductions stop at 64 dims too
MAX_DIMS = 64


def _too_many_dims(shape):
    raise RuntimeError(f"only tensors with up to {MAX_DIMS} dims are supported, got {len(shape)} "
                       f"(webtorch does not support more)")


def check_size(shape, dtype, device_type):
    """The number of elements of shape, checked before anything is built (a huge size must not first
    build the Python lists that would index it): RuntimeError as torch for a negative or overflowing
    size, the device's error for one it cannot hold."""
    if len(shape) > MAX_DIMS:
        _too_many_dims(shape)
    if dtype.typecode is None and dtype not in dt.COMPLEX:  # _dtypes.WITHOUT_STORAGE
        raise NotImplementedError(f"webtorch holds no {dtype.name} tensors (its float8, uint16/32/64 and complex dtypes are names only)")
    n = 1
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
        n *= s
    if n * dtype.itemsize >= 2 ** 63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    if dtype.is_complex:
        backend(device_type).check_numel(dt.REAL_OF[dtype], 2 * n)
    else:
        backend(device_type).check_numel(dtype, n)
    return n


def _empty(shape, dtype, device_type):
    shape = tuple(shape)
    n = check_size(shape, dtype, device_type)
    if dtype.is_complex:
        return Tensor(complex_storage.empty(backend(device_type), dtype, n), shape)
    return Tensor(backend(device_type).empty(dtype, n), shape)


# -- repr like PyTorch's ---------------------------------------------------------------------
def _format(t, contents=None):
    """torch's repr: "tensor(" for a Tensor or a Parameter, a subclass's name otherwise; contents (a str)
    in place of the values where given."""
    prefix = "tensor(" if type(t) is Tensor or type(t).__dict__.get("_repr_as_tensor") else f"{type(t).__name__}("
    no_data = t._storage.device_type == "meta"
    values = list(t._host_values()) if t.numel() <= 1000 and not no_data else None
    suffix = []
    if t.device.type != "cpu":
        suffix.append(f"device='{t.device}'")
    if no_data or t.numel() == 0 and t.dim() != 1:
        suffix.append(f"size={tuple(t.shape)}")  # after the device, as torch
    if t.dtype not in (dt.default_float, dt.int64, dt.bool_, dt.COMPLEX_OF[dt.default_float]) or (no_data or t.numel() == 0) and \
            t.dtype is not dt.default_float:
        suffix.append(f"dtype=webtorch.{t.dtype.name}")
    body = contents if contents is not None else "..." if no_data else _body(t, values, len(prefix))
    if t.grad_fn is not None:
        suffix.append(f"grad_fn={t.grad_fn!r}")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return prefix + ", ".join([body] + suffix) + ")"


def _body(t, values, indent):
    """The bracketed elements of t's repr, rows after the first indented by indent (that of "tensor(")."""
    if values is None:
        return f"[... {t.numel()} elements ...]"
    if not values:
        return "[]"
    if t.dtype.is_complex:
        return _nest_str(_complex_strings(values[::2], values[1::2], t.dtype), t.shape, 1, indent)
    fmt = _formatter(values, t.dtype)
    return _nest_str([fmt(v) for v in values], t.shape, 1, indent)


def _formatter(values, d):
    if d is dt.bool_:
        width = 5 if not all(values) else 4
        return lambda v: ("True" if v else "False").rjust(width)
    if d.category == 1:
        width = max((len(str(v)) for v in values), default=1)
        return lambda v: str(v).rjust(width)
    nonzero = [v for v in values if math.isfinite(v) and v != 0]
    ints = all(v == int(v) for v in nonzero)
    mags = [abs(v) for v in nonzero]
    sci = bool(mags) and (max(mags) / min(mags) > 1000.0 or max(mags) > 1e8 or min(mags) < 1e-4)

    def one(v):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if sci:
            return f"{v:.4e}"
        if ints:
            return f"{v:.0f}."
        return f"{v:.4f}"
    width = max((len(one(v)) for v in nonzero), default=1)  # torch sizes columns by finite nonzero values
    return lambda v: one(v).rjust(width)


def _complex_strings(reals, imags, d):
    """torch's complex elements: the real parts formatted as one column, the imaginary parts as another,
    each with its sign and a j ("1.0000+2.j", "nan-infj")."""
    fmt_re, fmt_im = _formatter(reals, d), _formatter(imags, d)
    out = []
    for re, im in zip(reals, imags):
        im_str = fmt_im(im).lstrip() + "j"
        out.append(fmt_re(re) + (im_str if im_str[0] in "+-" else "+" + im_str))
    return out


def _nest_str(items, shape, depth, indent=7):
    if not shape:
        return items[0]
    if len(shape) == 1:
        return "[" + ", ".join(items) + "]"
    step = len(items) // shape[0] if shape[0] else 0
    rows = [_nest_str(items[i * step:(i + 1) * step], shape[1:], depth + 1, indent) for i in range(shape[0])]
    sep = "," + "\n" * (len(shape) - 1) + " " * (indent + depth)
    return "[" + sep.join(rows) + "]"

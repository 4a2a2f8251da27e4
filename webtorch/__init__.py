"""webtorch: PyTorch for the browser, on WebGPU, in pure Python.

    import webtorch as torch
    x = torch.tensor([1.0, 2.0], device="webgpu")
"""
__version__ = "0.1.0"

import math as _math
import sys as _sys

from . import _autocast, _dtypes
from .backend import gpu as _gpu
from ._dtypes import bool_ as bool, bfloat16, dtype, finfo, float16, float32, float64, iinfo, int8, int16, int32, \
    int64, uint8
from ._dtypes import complex32, complex64, complex128, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, \
    float8_e8m0fnu, uint16, uint32, uint64
from ._tensor import Tensor, Size, device
from ._ops import *  # noqa: F401,F403  (the op functions, PyTorch's names)
from ._ops import abs, all, any, broadcast_shapes, max, min, pow, round, sum  # shadow the builtins
from ._indexing import *  # noqa: F401,F403  (tensor indexing; its where() adds the one-argument form)
from ._complex import *  # noqa: F401,F403  (complex tensors: view_as_real, polar, conj, ...)
from ._shape_ops import *  # noqa: F401,F403
from ._math_ops import *  # noqa: F401,F403
from ._integrate import *  # noqa: F401,F403  (trapezoid, trapz, cumulative_trapezoid)
from ._factories import *  # noqa: F401,F403  (logspace, range, scalar_tensor, fill, empty_strided)
from ._inplace import *  # noqa: F401,F403  (in-place methods attach to Tensor)
from ._random import *  # noqa: F401,F403
from ._buffers import frombuffer, from_js, from_numpy
from ._checks import (_assert, _assert_async, _assert_scalar, _check, _check_index, _check_is_size,  # noqa: F401
                      _check_not_implemented, _check_tensor_all, _check_tensor_all_with, _check_type, _check_value,
                      _check_with)
from ._storage import UntypedStorage, asarray  # noqa: F401  (also attaches Tensor.untyped_storage/data_ptr)
from ._tensor_types import *  # noqa: F401,F403  (FloatTensor, LongTensor, ...)
from . import linalg
from .linalg import det, slogdet, inv as inverse, lu_unpack, _lu_legacy as lu, _lu_solve_legacy as lu_solve
from .linalg import matrix_power, matrix_exp
from ._linalg_legacy import (svd, qr, cholesky, cholesky_solve, cholesky_inverse, logdet, pinverse,  # noqa: F401
                             triangular_solve)  # the names from before torch.linalg
from ._foreach import *  # noqa: F401,F403  (torch._foreach_*: an op over each tensor of a list)
from . import autograd, errors, webgpu, nn, optim, profiler, utils, safetensors, hub
from . import serialization
from .serialization import load, save
from . import accelerator, amp, backends, cuda, distributed, distributions, fft, jit, random, special, version
from .special import polygamma, multigammaln as mvlgamma, gammainc as igamma, gammaincc as igammac  # torch.X forms
from ._spectral import *  # noqa: F401,F403  (window functions, stft, istft)
from . import ao, compiler, fx, library, multiprocessing, onnx, types, _C, _custom_ops, _dynamo, _subclasses, _utils  # noqa: F401  (import-time surface)
from . import cpu, func, futures, overrides, testing  # noqa: F401
from . import nested, quasirandom, storage  # noqa: F401  (refusals naming their gaps; storage.UntypedStorage)
from .autograd import profiler as _autograd_profiler, profiler_legacy as _profiler_legacy  # noqa: F401,E402
from .library import ops
library.aten_functions = _sys.modules[__name__]
from .amp import autocast
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .errors import OutOfMemoryError  # torch.OutOfMemoryError
from ._compile import compile  # noqa: A001 (torch.compile shadows the builtin too)
from ._settings import *  # noqa: F401,F403  (thread counts, deterministic algorithms, typename)
from .amp import GradScaler  # noqa: F401  (torch.GradScaler)

float = float32
half = float16
cfloat, cdouble, chalf = complex64, complex128, complex32
double = float64
long = int64
int = int32
short = int16
result_type = _dtypes.result_type
set_default_dtype, get_default_dtype = _dtypes.set_default_dtype, _dtypes.get_default_dtype
promote_types = _dtypes.promote


inf, nan, pi, e = _math.inf, _math.nan, _math.pi, _math.e
newaxis = None


def is_complex(x):
    return x.dtype.is_complex


def is_tensor(x):
    return isinstance(x, Tensor)


def numel(x):
    return x.numel()


def is_floating_point(x):
    return x.is_floating_point()


def is_autocast_enabled(device_type=None):
    return _autocast.enabled.get(device_type or "cuda", False)  # torch: no device type means "cuda"


def set_float32_matmul_precision(precision):
    """"highest" (the default): float32 matmuls in fp32 kernels; "high" / "medium": on tensor cores
    where the adapter offers subgroup matrices, as split f16 / f16 (docs/compatibility.md: float32 matmul precision)."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        import warnings
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.")
        return
    _gpu.float32_matmul_precision = precision


def get_float32_matmul_precision():
    return _gpu.float32_matmul_precision


def get_autocast_dtype(device_type):
    return _autocast.dtype[device_type]


def set_autocast_enabled(device_type, enabled):
    _autocast.set_enabled(device_type, enabled)


def set_autocast_dtype(device_type, dtype):
    _autocast.dtype[device_type] = dtype


def is_autocast_cache_enabled():
    return _autocast.cache_enabled


def set_autocast_cache_enabled(enabled):
    _autocast.cache_enabled = bool(enabled)


def clear_autocast_cache():
    _autocast.clear_cache()


def is_autocast_cpu_enabled():
    return _autocast.enabled["cpu"]


def get_autocast_cpu_dtype():
    return _autocast.dtype["cpu"]


def install_as_torch():
    """Make `import torch` (torch.X, importlib.metadata's "torch") resolve to webtorch: docs/compatibility.md "import torch"."""
    from ._as_torch import install_as_torch
    return install_as_torch()


from . import _tensor_args  # noqa: E402  (last: it wraps the public names defined above)
_tensor_args.apply(globals())

from ._memory_format import *  # noqa: E402,F401,F403  (torch.strided, torch.channels_last, ...)
_memory_format.attach(Tensor)
from . import _forms  # noqa: E402
_forms.attach(_sys.modules[__name__])
from . import _nn_forms  # noqa: E402
_nn_forms.attach(_sys.modules[__name__])
from . import _out  # noqa: E402  (out= for every torch function that takes it)
_out.attach({"": _sys.modules[__name__], "linalg": linalg, "special": special, "fft": fft,
             "nn.functional": nn.functional})
from . import sparse  # noqa: E402  (after the dense names: sparse operands for mm/matmul/@, SparseTensor's refusals)
sparse.attach(_sys.modules[__name__])
from . import _torch_function  # noqa: E402  (after every public function is defined: it wraps them)
_torch_function.attach([_sys.modules[__name__], nn.functional, linalg, fft, special],
                       [nn.Parameter, nn.Buffer, nn.parameter.UninitializedBuffer, sparse.SparseTensor,
                        sparse.CompressedTensor])
from . import _refusals  # noqa: E402  (after every implemented name: it fills in only what is missing)
_refusals.install({"": _sys.modules[__name__], "Tensor": Tensor, "nn": nn, "nn.functional": nn.functional,
                   "linalg": linalg, "fft": fft, "special": special, "sparse": sparse, "nn.init": nn.init, "optim": optim,
                   "utils.data": utils.data, "distributed": distributed, "cuda": cuda},
                  {"nn": nn.Module, "optim": optim.Optimizer, "utils.data": utils.data.Sampler})
if __import__("os").environ.get("WEBTORCH_AS_TORCH") == "1":  # the opt-in that needs no code
    install_as_torch()

"""torch's `out=` keyword, for every function of torch's namespaces that takes it, as one wrapper.

torch 2.13 gives out= to 394 public functions (torch.*, torch.linalg.*, torch.special.*, torch.fft.*,
nn.functional.normalize). OUT lists them all (tests/test_out.py derives the same list from torch's own
signatures and fails when they part); attach() wraps each one webtorch implements, so a function built
later gets its out= by being implemented. The wrapper computes the function's result and writes it into
out with torch's contract:

* out is returned (for a function of several results, out is a tuple or list of tensors, one per result,
  and a namedtuple of them is returned, as torch's torch.return_types.*_out);
* an out of another shape is resized to the result's (contiguous), silently when it had no elements,
  with torch's deprecation UserWarning otherwise;
* its dtype must take the result: for most functions any dtype of the same or a higher category
  (float into float64, bool into float: torch's canCast; "result type Float can't be cast to the desired
  output type Long" otherwise); for EXACT functions and every result of a multi-result function, only
  the result's own dtype (torch's "Expected out tensor to have dtype float, but got double instead");
  the reductions of OUT_DTYPE_COMPUTES compute in out's dtype (sum(float32, out=float64) sums in
  float64, as torch); the creation functions (CREATION) take out's dtype and device as their defaults;
* with gradients enabled, an input (or out) that requires grad is torch's RuntimeError: out= forms are
  not differentiable;
* out on another device, or partly overlapping an input, raises torch's RuntimeError.
"""
import functools
import warnings

from . import _ops, _tape
from . import _dtypes as dt
from ._inplace import _check_castable_dtype as check_castable_dtype
from ._ops import cast, check_writable
from ._tensor import _TYPE_NAMES, Tensor

OUT = """
    abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr alias_copy all amax amin aminmax angle
    any arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort as_strided_copy asin
    asinh atan atan2 atanh baddbmm batch_norm_elemt bernoulli bitwise_and bitwise_left_shift bitwise_not
    bitwise_or bitwise_right_shift bitwise_xor bmm bucketize cat ccol_indices_copy ceil chain_matmul cholesky
    cholesky_inverse cholesky_solve clamp clamp_max clamp_min clip col_indices_copy column_stack complex concat
    concatenate conj_physical copysign cos cosh cross crow_indices_copy cudnn_batch_norm cudnn_convolution
    cummax cummin cumprod cumsum deg2rad detach_copy diag diagonal_copy diff digamma div divide dot dstack
    empty eq erf erfc erfinv exp exp2 expand_copy expm1 eye fix float_power floor floor_divide fmax fmin fmod
    frac frexp frobenius_norm full gather gcd ge geqrf ger greater greater_equal gt hardshrink hash_tensor
    heaviside histc histogram hspmm hstack hypot i0 igamma igammac index_add index_copy index_reduce
    index_select indices_copy inner inverse isin isneginf isposinf kron kthvalue lcm ldexp le lerp less
    less_equal lgamma linspace log log10 log1p log2 log_softmax logaddexp logaddexp2 logcumsumexp logical_and
    logical_not logical_or logical_xor logit logspace logsumexp lstsq lt lu_solve lu_unpack masked_select
    matmul matrix_power matrix_rank max maximum mean median min minimum mkldnn_adaptive_avg_pool2d mm mode
    msort mul multinomial multiply mv mvlgamma nan_to_num nanmean nanmedian nanquantile nansum narrow_copy
    native_batch_norm ne neg negative nextafter nonzero nonzero_static norm normal not_equal nuclear_norm ones
    orgqr ormqr outer permute_copy polar polygamma pow prod qr quantile rad2deg rand randint randn randperm
    range reciprocal remainder renorm round row_indices_copy row_stack rsqrt saddmm scatter scatter_add
    scatter_reduce searchsorted select_copy sgn sigmoid sign signbit sin sinc sinh slice_copy slice_scatter
    slogdet softmax solve sort split_copy split_with_sizes_copy sqrt square squeeze_copy sspaddmm stack std
    sub subtract sum svd symeig t_copy take take_along_dim tan tanh tensordot threshold topk transpose_copy
    triangular_solve tril triu true_divide trunc unbind_copy unfold_copy unsqueeze_copy values_copy var vdot
    view_as_complex_copy view_as_real_copy view_copy vstack where xlogy zeros
    linalg.cholesky linalg.cholesky_ex linalg.cond linalg.cross linalg.det linalg.eig linalg.eigh
    linalg.eigvals linalg.eigvalsh linalg.householder_product linalg.inv linalg.inv_ex linalg.ldl_factor
    linalg.ldl_factor_ex linalg.ldl_solve linalg.lu linalg.lu_factor linalg.lu_factor_ex linalg.lu_solve
    linalg.matmul linalg.matrix_norm linalg.matrix_power linalg.matrix_rank linalg.multi_dot linalg.norm
    linalg.pinv linalg.qr linalg.slogdet linalg.solve linalg.solve_ex linalg.solve_triangular linalg.svd
    linalg.svdvals linalg.tensorinv linalg.tensorsolve linalg.vecdot linalg.vector_norm
    special.airy_ai special.bessel_j0 special.bessel_j1 special.bessel_y0 special.bessel_y1
    special.chebyshev_polynomial_t special.chebyshev_polynomial_u special.chebyshev_polynomial_v
    special.chebyshev_polynomial_w special.digamma special.entr special.erf special.erfc special.erfcx
    special.erfinv special.exp2 special.expit special.expm1 special.gammainc special.gammaincc special.gammaln
    special.hermite_polynomial_h special.hermite_polynomial_he special.i0 special.i0e special.i1 special.i1e
    special.laguerre_polynomial_l special.legendre_polynomial_p special.log1p special.log_ndtr special.logit
    special.logsumexp special.modified_bessel_i0 special.modified_bessel_i1 special.modified_bessel_k0
    special.modified_bessel_k1 special.multigammaln special.ndtr special.ndtri special.polygamma special.psi
    special.round special.scaled_modified_bessel_k0 special.scaled_modified_bessel_k1
    special.shifted_chebyshev_polynomial_t special.shifted_chebyshev_polynomial_u
    special.shifted_chebyshev_polynomial_v special.shifted_chebyshev_polynomial_w special.sinc
    special.spherical_bessel_j0 special.xlog1py special.xlogy special.zeta
    fft.fft fft.fft2 fft.fftfreq fft.fftn fft.hfft fft.hfft2 fft.hfftn fft.ifft fft.ifft2 fft.ifftn fft.ihfft
    fft.ihfft2 fft.ihfftn fft.irfft fft.irfft2 fft.irfftn fft.rfft fft.rfft2 fft.rfftfreq fft.rfftn
    nn.functional.normalize"""
# Single-result functions whose out must have the result's dtype exactly (measured on torch 2.13 with
# OpInfo's samples and an out of a wider dtype; tests/test_out.py checks each against torch).
EXACT = """
    abs absolute addbmm addmm addmv alias_copy amax amin argmax argmin as_strided_copy baddbmm bmm ceil chain_matmul
    conj_physical cross diag diagonal_copy diff dot expand_copy fix floor frac gather hardshrink heaviside
    histc index_add index_copy index_reduce index_select inner inverse ldexp log_softmax logcumsumexp lu_solve masked_select
    matmul matrix_power mm msort multinomial mv nan_to_num nanquantile narrow_copy neg negative nonzero norm ormqr
    permute_copy quantile renorm round scatter scatter_add scatter_reduce sgn sign slice_scatter softmax
    squeeze_copy t_copy take take_along_dim tensordot transpose_copy tril triu trunc unfold_copy unsqueeze_copy
    vdot view_as_real_copy view_copy where detach_copy select_copy slice_copy
    linalg.cholesky linalg.cross linalg.det linalg.eigvalsh linalg.inv linalg.ldl_solve linalg.lu_solve
    linalg.matmul linalg.matrix_norm linalg.multi_dot linalg.norm linalg.solve linalg.solve_triangular
    linalg.svdvals linalg.vecdot linalg.vector_norm special.round"""
# Multi-result functions whose outs may take any dtype their results cast to (the rest: exact).
CASTING_TUPLES = "lstsq"
# Functions that refuse an out of a lower category with TypeError (torch's argument check), not RuntimeError
TYPE_ERROR_CASTS = "cat concat concatenate stack hstack vstack dstack column_stack row_stack"
# Which calls with an input (or out) that requires grad torch refuses: those of a differentiable function,
# i.e. one with a floating result, except the functions below
UNCHECKED_GRAD = ("conj_physical diag diff fft.ifft fft.ihfft inner linalg.cond linalg.matrix_norm linalg.norm "
                  "linalg.tensorinv linalg.tensorsolve "
                  "log_softmax nanquantile slice_scatter "
                  "quantile softmax special.ndtr tensordot view_as_complex_copy fft.ihfftn "
                  "alias_copy as_strided_copy detach_copy diagonal_copy expand_copy permute_copy select_copy slice_copy "
                  "squeeze_copy t_copy transpose_copy unfold_copy unsqueeze_copy view_copy "
                  "split_with_sizes_copy unbind_copy")  # decomposed by torch before its check
NOT_DIFFERENTIABLE = ("floor_divide heaviside histc histogram "  # a floating result without a gradient
                      "special.airy_ai special.bessel_j0 special.bessel_j1 special.bessel_y0 special.bessel_y1 "
                      "special.modified_bessel_i0 special.modified_bessel_i1 special.modified_bessel_k0 "
                      "special.modified_bessel_k1 special.scaled_modified_bessel_k0 special.scaled_modified_bessel_k1 "
                      "special.spherical_bessel_j0 special.chebyshev_polynomial_t special.chebyshev_polynomial_u "
                      "special.chebyshev_polynomial_v special.chebyshev_polynomial_w special.hermite_polynomial_h "
                      "special.hermite_polynomial_he special.laguerre_polynomial_l special.legendre_polynomial_p "
                      "special.shifted_chebyshev_polynomial_t special.shifted_chebyshev_polynomial_u "
                      "special.shifted_chebyshev_polynomial_v special.shifted_chebyshev_polynomial_w")
CHECKED_INTEGER = "argsort"  # an integer result, refused all the same (torch computes it with sort's out=)
# Functions that resize a differently shaped out without torch's deprecation warning
SILENT_RESIZE = "addbmm bernoulli multinomial narrow_copy"
# Reductions that compute in out's dtype where no dtype= is given (torch infers it from out).
OUT_DTYPE_COMPUTES = "sum prod cumsum cumprod nansum"
# Creation functions: out gives the dtype and device where they are not given; a dtype= that differs
# from out's is torch's RuntimeError; out is resized without a warning.
CREATION = "arange empty eye full linspace logspace ones rand randint randn randperm range zeros"

# torch's C++ names of the dtypes, as its "Expected out tensor to have dtype ..." message writes them
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


_TYPE_ERROR_CASTS = set(TYPE_ERROR_CASTS.split())
_UNCHECKED_GRAD, _NOT_DIFFERENTIABLE = set(UNCHECKED_GRAD.split()), set(NOT_DIFFERENTIABLE.split())
_CHECKED_INTEGER = set(CHECKED_INTEGER.split())


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _check_dtype(result, out, exact, name):
    if name in _TYPE_ERROR_CASTS and result.dtype.category > out.dtype.category:
        raise TypeError(f"torch.{name}(): input types can't be cast to the desired output type "
                        f"{_TYPE_NAMES[out.dtype.name]}")
    if exact:
        if result.dtype is not out.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES.get(result.dtype.name, result.dtype.name)}"
                               f", but got {_CPP_NAMES.get(out.dtype.name, out.dtype.name)} instead")
    else:
        check_castable_dtype(result.dtype, out)


def _resize(out, result, warn):
    """out takes result's shape (contiguous, fresh memory) and values."""
    if warn and out.numel():
        warnings.warn(f"An output with one or more elements was resized since it had shape {list(out.shape)}, which "
                      f"does not match the required output shape {list(result.shape)}. This behavior is deprecated, "
                      "and in a future PyTorch release outputs will not be resized unless they have zero elements. "
                      "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                      "t.resize_(0).", UserWarning, stacklevel=4)
    fresh = _ops.clone(cast(result, out.dtype))
    out._storage = fresh._storage
    out.shape, out._stride, out._offset = fresh.shape, fresh._stride, fresh._offset
    return out


def write(out, result, inputs=(), exact=False, warn=True, name=""):
    """result written into out by torch's out= contract (module docstring); out returned."""
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if result.device.type != out.device.type:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got {out.device} instead")
    _check_dtype(result, out, exact, name)
    if tuple(out.shape) != tuple(result.shape):
        return _resize(out, result, warn)
    check_writable(out, *inputs)
    _ops.write_(out, result)
    return out


def _check_differentiable(name, path, inputs, results, out):
    """torch's refusal of out= for a differentiable function where an input or out requires grad."""
    if not _tape.is_grad_enabled() or path in _UNCHECKED_GRAD or not any(t.requires_grad for t in _tensors((inputs, out))):
        return
    if path in _CHECKED_INTEGER or (path not in _NOT_DIFFERENTIABLE and any(r.dtype.category >= 2 for r in results)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def with_out(fn, path, exact=False, casting_tuple=False, computes_in_out=False, warn=True):
    """fn taking out= (module docstring)."""
    name = path.rpartition(".")[2]

    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if computes_in_out and kwargs.get("dtype") is None and isinstance(out, Tensor):
            kwargs["dtype"] = out.dtype
        with _tape.no_grad():  # an out= result carries no gradient
            result = fn(*args, **kwargs)
        inputs = tuple(_tensors((args, tuple(kwargs.values()))))
        _check_differentiable(name, path, inputs, tuple(_tensors((result,))), out)
        if isinstance(result, Tensor):
            return write(out, result, inputs, exact, warn, name)
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of {len(result)} Tensors")
        written = [write(o, r, inputs, not casting_tuple, warn, name) for o, r in zip(out, result)]
        return type(result)(*written) if hasattr(result, "_fields") else type(result)(written)
    return f


def creation_with_out(fn, name):
    """A creation function taking out=: its dtype and device where not given (module docstring)."""
    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        dtype = kwargs.get("dtype")
        if dtype is not None and dt.as_dtype(dtype) is not out.dtype:
            raise RuntimeError(f"dtype {_TYPE_NAMES[dt.as_dtype(dtype).name]} does not match dtype of out parameter "
                               f"({_TYPE_NAMES[out.dtype.name]})")
        kwargs["dtype"] = out.dtype
        kwargs.setdefault("device", out.device)
        result = fn(*args, **kwargs)
        _check_differentiable(name, name, (), (result,), out)
        if name == "arange" and out.numel() and out.numel() != result.numel():
            warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} is {out.numel()} which "
                          f"does not match the computed number of elements {result.numel()}. Note that this may occur "
                          "as a result of rounding error. The out tensor will be resized to a tensor of shape "
                          f"({result.numel()},).", UserWarning, stacklevel=2)
        return write(out, result, warn=False, name=name)
    return f


def _owner(namespaces, path):
    prefix, _, name = path.rpartition(".")
    return namespaces.get(prefix), name


def attach(namespaces):
    """Give out= to every OUT function webtorch implements. namespaces: {prefix: module} ("" for torch).
    Each function object is wrapped once and every OUT name bound to it gets that one form (torch.absolute
    stays torch.abs)."""
    exact, casting = set(EXACT.split()), set(CASTING_TUPLES.split())
    computes, creation = set(OUT_DTYPE_COMPUTES.split()), set(CREATION.split())
    silent = set(SILENT_RESIZE.split())
    wrapped = {}
    for path in OUT.split():
        owner, name = _owner(namespaces, path)
        fn = getattr(owner, name, None) if owner is not None else None
        if fn is None:
            continue  # not implemented: the refusals give it its stand-in
        key = id(fn)
        if key not in wrapped:
            if name in creation and owner is namespaces[""]:
                wrapped[key] = creation_with_out(fn, name)
            else:
                wrapped[key] = with_out(fn, path, path in exact, path in casting, name in computes,
                                        path not in silent)
        setattr(owner, name, wrapped[key])

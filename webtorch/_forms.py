"""torch's other spellings of what webtorch already computes, attached from above (webtorch/__init__.py
calls attach() before the refusals fill in the rest): function forms of in-place methods (torch.relu_),
torch.X forms of nn.functional ops whose signature is the same, Tensor aliases (absolute, fix, ravel,
ndimension, ravel), and the properties that are constant because webtorch has no such tensors (is_sparse,
is_quantized: always False, as torch's are for a dense tensor). Each is derived from an implemented op,
so values, dtypes, errors and gradients are that op's."""
import functools
import inspect

# torch.X_(input, *args) is input.X_(*args)
INPLACE_FUNCTIONS = ("abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ "
                     "ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ erf_ exp2_ exp_ expm1_ fill_ floor_ frac_ "
                     "log10_ log1p_ log2_ log_ nan_to_num_ neg_ negative_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ "
                     "sin_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ zero_ deg2rad_ rad2deg_ sinc_ logit_ i0_ fix_ erfc_")
BINARY_INPLACE_FUNCTIONS = "ldexp_ xlogy_ gcd_ lcm_ as_strided_"  # the same, with a second operand (tests/op_cases.py)
# torch.X is nn.functional.X: the same positional signature
FUNCTIONAL_FORMS = ("conv1d conv2d conv_transpose1d conv_transpose2d layer_norm group_norm rms_norm pixel_shuffle pixel_unshuffle "
                    "cosine_similarity pairwise_distance bilinear prelu selu celu threshold max_pool1d max_pool2d "
                    "avg_pool1d adaptive_avg_pool1d channel_shuffle alpha_dropout hardshrink celu_ selu_ threshold_")
# Tensor.X is Tensor.Y
TENSOR_ALIASES = {"absolute": "abs", "absolute_": "abs_", "fix": "trunc", "fix_": "trunc_", "ndimension": "dim",
                  "arccosh_": "acosh_", "arcsinh_": "asinh_", "arctanh_": "atanh_", "greater_": "gt_",
                  "greater_equal_": "ge_", "less_": "lt_", "less_equal_": "le_", "not_equal_": "ne_"}
# The factory keywords torch takes that webtorch's function lacks, per function: layout (strided only: sparse
# tensors are issue 24's), pin_memory (False only: webtorch has no pinned host memory) and memory_format
# (the result laid out so). *_like functions already take layout and memory_format.
FACTORY_KEYWORDS = {"layout pin_memory": "zeros ones empty full rand randn randint randperm arange linspace eye "
                                         "Tensor.new_zeros Tensor.new_ones Tensor.new_empty Tensor.new_full",
                    "pin_memory": "tensor zeros_like ones_like empty_like full_like rand_like randn_like randint_like",
                    "memory_format": "empty rand_like randn_like randint_like",
                    "layout": "rand_like randn_like randint_like"}
# torch's argument parser takes numpy's spellings for two parameters of its C++ functions and methods: axis
# for dim, keepdims for keepdim (torch.sum(x, axis=0, keepdims=True)); the ones torch defines in Python do not.
KEYWORD_ALIASES = {"axis": "dim", "keepdims": "keepdim"}
PYTHON_DEFINED = "norm split unique unique_consecutive Tensor.norm Tensor.split Tensor.unflatten Tensor.unique " \
                 "Tensor.unique_consecutive"
def _narrow_copy_dim(input, dim):
    """narrow_copy's own check of a dim past the last (RuntimeError; narrow's, and below -ndim: IndexError)."""
    if dim >= input.dim():
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.")
    return dim


# torch.X_copy: the view X as a new contiguous tensor of its own (functionalization's forms), per name the
# view as a function of torch's parameters (a tuple of views for the split/unbind forms: each copied)
COPY_FORMS = {
    "alias_copy": lambda input: input,
    "as_strided_copy": lambda input, size, stride, storage_offset=None: input.as_strided(size, stride, storage_offset),
    "detach_copy": lambda input: input.detach(),
    "diagonal_copy": lambda input, offset=0, dim1=0, dim2=1: input.diagonal(offset, dim1, dim2),
    "expand_copy": lambda input, size, *, implicit=False: input.expand(size),
    "narrow_copy": lambda input, dim, start, length: input.narrow(_narrow_copy_dim(input, dim), start, length),
    "permute_copy": lambda input, dims: input.permute(dims),
    "select_copy": lambda input, dim, index: input.select(dim, index),
    "slice_copy": lambda input, dim=0, start=None, end=None, step=1:
        input[(slice(None),) * (dim % max(input.dim(), 1)) + (slice(start, end, step),)],
    "split_with_sizes_copy": lambda input, split_sizes, dim=0: input.split(list(split_sizes), dim),
    "squeeze_copy": lambda input, dim=None: input.squeeze() if dim is None else input.squeeze(dim),
    "t_copy": lambda input: input.t(),
    "transpose_copy": lambda input, dim0, dim1: input.transpose(dim0, dim1),
    "unbind_copy": lambda input, dim=0: input.unbind(dim),
    "unfold_copy": lambda input, dimension, size, step: input.unfold(dimension, size, step),
    "unsqueeze_copy": lambda input, dim: input.unsqueeze(dim),
    "view_copy": lambda input, size: input.view(size),
}
# Properties that are False for every tensor webtorch can make (dense, strided, unquantized, on its devices)
ALWAYS_FALSE = ("is_sparse is_sparse_csr is_quantized is_nested is_mkldnn is_xla is_ipu is_maia is_mtia is_vulkan")


def _nonempty(x):
    if x.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    return x


def can_cast(from_, to):
    """torch's casting rule: no cast to a lower kind (complex -> float -> integer -> bool)."""
    return from_.category <= to.category


def _inplace_function(name):
    def form(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    form.__name__ = form.__qualname__ = name
    return form


def _copy_form(name, view, contiguous):
    def form(*args, **kwargs):
        out = view(*args, **kwargs)
        if isinstance(out, (tuple, list)):
            return tuple(t.clone(memory_format=contiguous) for t in out)
        return out.clone(memory_format=contiguous)
    form.__name__ = form.__qualname__ = name
    form.__signature__ = inspect.signature(view)
    return form


def _factory(fn, path, keywords, torch):
    """fn taking torch's extra factory keywords too (only those listed for it)."""
    @functools.wraps(fn)
    def create(*args, **kwargs):
        layout = kwargs.pop("layout", None) if "layout" in keywords else None
        pin_memory = kwargs.pop("pin_memory", False) if "pin_memory" in keywords else False
        memory_format = kwargs.pop("memory_format", None) if "memory_format" in keywords else None
        if layout is not None and layout is not torch.strided:
            raise NotImplementedError(f"webtorch: torch.{path}(layout={layout}): only torch.strided tensors exist "
                                      "here (sparse tensors: issue 24)")
        if pin_memory:
            raise NotImplementedError(f"webtorch: torch.{path}(pin_memory=True): webtorch has no pinned host memory "
                                      "(a tensor's memory is a WebGPU buffer or a numpy array)")
        out = fn(*args, **kwargs)
        if memory_format is not None and memory_format is not torch.preserve_format:
            out = out.contiguous(memory_format=memory_format)
        return out
    return create


def _aliasing(fn, name, params):
    """fn taking axis= for dim= and keepdims= for keepdim= (where it has those parameters)."""
    aliases = {alias: real for alias, real in KEYWORD_ALIASES.items() if real in params}

    @functools.wraps(fn)
    def aliased(*args, **kwargs):
        if kwargs:
            for alias, real in aliases.items():
                if alias in kwargs:
                    if real in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument '{real}'")
                    kwargs[real] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    aliased.keyword_aliases = aliases  # what it renames (tests/test_forms.py reads it)
    return aliased


def _attach_keywords(torch):
    Tensor = torch.Tensor
    for keywords, names in FACTORY_KEYWORDS.items():
        for path in names.split():
            owner, name = (Tensor, path[7:]) if path.startswith("Tensor.") else (torch, path)
            fn = getattr(owner, name)
            params = inspect.signature(fn).parameters
            missing = {k for k in keywords.split() if k not in params}
            if missing:
                setattr(owner, name, _factory(fn, path, missing, torch))
    skip = set(PYTHON_DEFINED.split())
    for prefix, owner in (("", torch), ("Tensor.", Tensor)):
        for name in dir(owner):
            fn = inspect.getattr_static(owner, name, None)
            if name.startswith("_") or prefix + name in skip or not inspect.isfunction(fn):
                continue
            params = inspect.signature(fn).parameters
            if any(real in params and alias not in params for alias, real in KEYWORD_ALIASES.items()):
                setattr(owner, name, _aliasing(fn, name, params))


def attach(torch):
    Tensor, F = torch.Tensor, torch.nn.functional
    for name in (INPLACE_FUNCTIONS + " " + BINARY_INPLACE_FUNCTIONS).split():
        setattr(torch, name, _inplace_function(name))
    for name, view in COPY_FORMS.items():
        setattr(torch, name, _copy_form(name, view, torch.contiguous_format))
    for name in FUNCTIONAL_FORMS.split():
        setattr(torch, name, getattr(F, name))
    Tensor.hardshrink = F.hardshrink
    for name, target in TENSOR_ALIASES.items():
        setattr(Tensor, name, getattr(Tensor, target))
    torch.absolute, torch.fix = torch.abs, torch.trunc
    for name in ALWAYS_FALSE.split():
        setattr(Tensor, name, property(lambda self: False))
    Tensor.is_complex = lambda self: self.dtype.is_complex
    # No tensor webtorch makes carries a lazy conjugate or negation bit (conj() conjugates the values at once:
    # webtorch/_complex.py), so these are torch's answers for every such tensor: False, and the tensor itself
    Tensor.is_conj = Tensor.is_neg = lambda self: False
    Tensor.resolve_conj = Tensor.resolve_neg = lambda self: self
    torch.is_conj, torch.is_neg = Tensor.is_conj, Tensor.is_neg
    torch.resolve_conj, torch.resolve_neg = Tensor.resolve_conj, Tensor.resolve_neg
    # Predicates of one tensor, as torch's: no tensor webtorch makes is an inference tensor (inference_mode
    # turns gradients off and marks nothing); a "webgpu" tensor is on device 0, as a cuda one would be
    Tensor.is_nonzero = lambda self: bool(_nonempty(self))
    Tensor.is_same_size = lambda self, other: self.shape == other.shape
    Tensor.is_signed = lambda self: self.dtype.is_signed
    Tensor.is_inference = lambda self: False
    Tensor.get_device = lambda self: -1 if self.device.type == "cpu" else (self.device.index or 0)
    for name in "is_nonzero is_same_size is_signed is_inference get_device".split():
        setattr(torch, name, getattr(Tensor, name))
    torch.can_cast = can_cast
    Tensor.itemsize = property(lambda self: self.element_size())
    Tensor.nbytes = property(lambda self: self.element_size() * self.numel())
    Tensor.ravel = torch.ravel = lambda input: input.reshape(-1)
    split = torch.split
    Tensor.split = lambda self, split_size, dim=0: split(self, split_size, dim)  # torch's method's names
    _attach_keywords(torch)

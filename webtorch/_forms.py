"""torch's other spellings of what webtorch already computes, attached from above (webtorch/__init__.py
calls attach() before the refusals fill in the rest): function forms of in-place methods (torch.relu_),
torch.X forms of nn.functional ops whose signature is the same, Tensor aliases (absolute, fix, ravel,
ndimension, ravel), and the properties that are constant because webtorch has no such tensors (is_sparse,
is_quantized: always False, as torch's are for a dense tensor). Each is derived from an implemented op,
so values, dtypes, errors and gradients are that op's."""
# torch.X_(input, *args) is input.X_(*args)
INPLACE_FUNCTIONS = ("abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ "
                     "ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ erf_ exp2_ exp_ expm1_ fill_ floor_ frac_ "
                     "log10_ log1p_ log2_ log_ nan_to_num_ neg_ negative_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ "
                     "sin_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ zero_")
# torch.X is nn.functional.X: the same positional signature
FUNCTIONAL_FORMS = ("conv1d conv2d conv_transpose2d layer_norm group_norm rms_norm pixel_shuffle pixel_unshuffle "
                    "cosine_similarity pairwise_distance bilinear prelu selu celu threshold max_pool1d max_pool2d "
                    "avg_pool1d adaptive_avg_pool1d channel_shuffle alpha_dropout hardshrink")
# Tensor.X is Tensor.Y
TENSOR_ALIASES = {"absolute": "abs", "absolute_": "abs_", "fix": "trunc", "fix_": "trunc_", "ndimension": "dim",
                  "arccosh_": "acosh_", "arcsinh_": "asinh_", "arctanh_": "atanh_", "greater_": "gt_",
                  "greater_equal_": "ge_", "less_": "lt_", "less_equal_": "le_", "not_equal_": "ne_"}
# Properties that are False for every tensor webtorch can make (dense, strided, unquantized, on its devices)
ALWAYS_FALSE = ("is_sparse is_sparse_csr is_quantized is_nested is_mkldnn is_xla is_ipu is_maia is_mtia is_vulkan")


def _inplace_function(name):
    def form(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    form.__name__ = form.__qualname__ = name
    return form


def attach(torch):
    Tensor, F = torch.Tensor, torch.nn.functional
    for name in INPLACE_FUNCTIONS.split():
        setattr(torch, name, _inplace_function(name))
    for name in FUNCTIONAL_FORMS.split():
        setattr(torch, name, getattr(F, name))
    Tensor.hardshrink = F.hardshrink
    for name, target in TENSOR_ALIASES.items():
        setattr(Tensor, name, getattr(Tensor, target))
    torch.absolute, torch.fix = torch.abs, torch.trunc
    for name in ALWAYS_FALSE.split():
        setattr(Tensor, name, property(lambda self: False))
    Tensor.is_complex = lambda self: self.dtype.is_complex
    # No tensor webtorch makes carries a lazy conjugate or negation bit (complex numbers: issue 24), so these
    # are torch's answers for every such tensor: False, and the tensor itself
    Tensor.is_conj = Tensor.is_neg = lambda self: False
    Tensor.resolve_conj = Tensor.resolve_neg = Tensor.conj = lambda self: self
    torch.is_conj, torch.is_neg = Tensor.is_conj, Tensor.is_neg
    torch.resolve_conj, torch.resolve_neg, torch.conj = Tensor.resolve_conj, Tensor.resolve_neg, Tensor.conj
    Tensor.itemsize = property(lambda self: self.element_size())
    Tensor.nbytes = property(lambda self: self.element_size() * self.numel())
    Tensor.ravel = torch.ravel = lambda input: input.reshape(-1)

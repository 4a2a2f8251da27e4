"""torch.X forms of nn ops whose signature differs from nn.functional.X's (torch's C++ argument order:
torch.embedding(weight, indices), torch.batch_norm(input, weight, bias, running_mean, ...), a loss's
reduction as an int), and the recurrent cells torch.lstm_cell & co. Each is the nn.functional op (or
nn.rnn's step) with its arguments reordered, so values, dtypes, errors and gradients are that op's.
_forms.py holds the forms whose signature is nn.functional's own."""
from .nn import functional as F
from .nn import _embedding_bag, rnn

# A loss's reduction as torch's C++ functions take it (at::Reduction::Reduction). Where their schema says
# reduction=Mean, torch's Python binding defaults it to 0, "none" (torch.kl_div(a, b) is elementwise): so here
_REDUCTIONS = ("none", "mean", "sum")


def _reduction(reduction):
    if not isinstance(reduction, int) or isinstance(reduction, bool) or not 0 <= reduction < len(_REDUCTIONS):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _p(p):
    """torch's C++ dropouts check p whether training or not, with a RuntimeError (F's raise ValueError)."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return p


def dropout(input, p, train):
    return F.dropout(input, _p(p), train)


def dropout_(input, p, train):
    return F.dropout(input, _p(p), train, inplace=True)


@F._inplace_option
def _feature_dropout(input, p, train, inplace=False):
    """Dropout of whole (sample, channel) slices of an input of at least 2 dims: dims 0 and 1 always."""
    if train and p > 0 and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return F._feature_dropout(input, _p(p), train, input.dim())


def feature_dropout(input, p, train):
    return _feature_dropout(input, p, train)


def feature_dropout_(input, p, train):
    return _feature_dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, _p(p), train)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, _p(p), train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return F.feature_alpha_dropout(input, _p(p), train)


def feature_alpha_dropout_(input, p, train):
    return F.feature_alpha_dropout(input, _p(p), train, inplace=True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    _no_generator(generator, "rrelu")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    _no_generator(generator, "rrelu_")
    return F.rrelu_(input, lower, upper, training)


def _no_generator(generator, name):
    if generator is not None:
        raise NotImplementedError(f"webtorch: torch.{name}(generator=...) is not built yet: it draws from the "
                                  "default generator (seed it with torch.manual_seed)")


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch's C++ embedding: a negative padding_idx means none (F.embedding counts it from the end)."""
    return F.embedding(indices, weight, padding_idx if padding_idx >= 0 else None, None, 2.0,
                       scale_grad_by_freq, sparse)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """torch's C++ embedding_bag: mode 0 sum, 1 mean, 2 max, a negative padding_idx none; (output, offset2bag,
    bag_size, max_indices) as its CPU kernel gives them."""
    return _embedding_bag.embedding_bag_parts(
        lambda ids: F.embedding(ids, weight, None, None, 2.0, scale_grad_by_freq), indices, weight, offsets,
        scale_grad_by_freq, _embedding_bag.MODES[mode], sparse, per_sample_weights, include_last_offset,
        padding_idx if padding_idx is None or padding_idx >= 0 else None)


def kl_div(input, target, reduction=0, *, log_target=False):
    return F.kl_div(input, target, _reduction(reduction), log_target)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return F.binary_cross_entropy_with_logits(input, target, weight, _reduction(reduction), pos_weight)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=0):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return F.hinge_embedding_loss(input, target, margin, _reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """The convolution every conv* op is: picked by the weight's spatial dims and `transposed`."""
    spatial = weight.dim() - 2
    if spatial not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D, 4D or 5D weight for convolution, but got weight of size {list(weight.shape)}")
    if transposed:
        op = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[spatial - 1]
        return op(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return (F.conv1d, F.conv2d, F.conv3d)[spatial - 1](input, weight, bias, stride, padding, dilation, groups)


def constant_pad_nd(input, pad, value=0):
    return F.pad(input, pad, "constant", value)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch's C++ signature: an empty stride means the kernel size."""
    return tuple(F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, return_indices=True))


def adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d returns (values, indices), as F.adaptive_max_pool1d(return_indices=True)."""
    return tuple(F.adaptive_max_pool1d(input, output_size, return_indices=True))


def _cell(mode, input, hx, c, w_ih, w_hh, b_ih, b_hh):
    return rnn._step(mode, F.linear(input, w_ih, b_ih), hx, c, w_hh, b_hh, None)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("RNN_TANH", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("RNN_RELU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """hx = (h, c) -> (h', c')."""
    h, c = hx
    return _cell("LSTM", input, h, c, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


NAMES = ("dropout dropout_ feature_dropout feature_dropout_ alpha_dropout alpha_dropout_ feature_alpha_dropout "
         "feature_alpha_dropout_ rrelu rrelu_ batch_norm instance_norm embedding embedding_bag kl_div poisson_nll_loss "
         "binary_cross_entropy_with_logits triplet_margin_loss margin_ranking_loss hinge_embedding_loss "
         "cosine_embedding_loss convolution constant_pad_nd max_pool1d_with_indices adaptive_max_pool1d "
         "rnn_tanh_cell rnn_relu_cell lstm_cell gru_cell")


def attach(torch):
    for name in NAMES.split():
        setattr(torch, name, globals()[name])
    torch.Tensor.prelu = F.prelu

"""torch.nn.utils.fusion: a convolution or linear layer followed by eval-mode batch norm, folded into
one layer. With s = bn_weight / sqrt(running_var + eps): weight * s (per output channel) and
(bias - running_mean) * s + bn_bias."""
import copy

from ... import _ops as F
from ..module import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _folded(weight, bias, mean, var, eps, gamma, beta, out_axis):
    gamma = F.ones_like(mean) if gamma is None else gamma
    beta = F.zeros_like(mean) if beta is None else beta
    bias = F.zeros_like(mean) if bias is None else bias
    scale = gamma * F.rsqrt(var + eps)
    shape = [1] * weight.dim()
    shape[out_axis] = -1
    fused_weight = (weight * scale.reshape(shape)).to(weight.dtype)
    fused_bias = ((bias - mean) * scale + beta).to(bias.dtype)
    return (Parameter(fused_weight, weight.requires_grad), Parameter(fused_bias, bias.requires_grad))


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    return _folded(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, 1 if transpose else 0)


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    return _folded(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, 0)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_linear_bn_eval(linear, bn):
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused

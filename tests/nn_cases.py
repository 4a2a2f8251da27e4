"""nn.functional cases for the shared op table (registered into op_cases.CASES; stdlib only)."""
from op_cases import BOOL, I, I32, I64, INF, NAN, case, error

NF = lambda T: T.nn.functional  # noqa: E731

case("nn-conv2d", lambda T, d, x, w, b: NF(T).conv2d(x, w, b), I((2, 3, 6, 6)), I((4, 3, 3, 3)), I((4,)),
     atol=1e-4, rtol=1e-4)
case("nn-conv2d-stride-pad-dil", lambda T, d, x, w: NF(T).conv2d(x, w, stride=2, padding=2, dilation=2),
     I((1, 2, 9, 7)), I((3, 2, 3, 2)), atol=1e-4, rtol=1e-4)
case("nn-conv2d-groups-same", lambda T, d, x, w: NF(T).conv2d(x, w, padding="same", groups=2),
     I((2, 4, 5, 5)), I((6, 2, 3, 3)), atol=1e-4, rtol=1e-4)
case("nn-conv2d-noncontig", lambda T, d, x, w: NF(T).conv2d(x, w, padding=1),
     I((2, 3, 5, 5), layout="transposed"), I((2, 3, 3, 3)), atol=1e-4, rtol=1e-4)
# The implicit-GEMM kernel on webgpu: depthwise groups, a non-square kernel with bias None at
# batch 1, an even kernel's asymmetric "same" padding, padding beyond the kernel, a strided
# weight, more channels than one 64-wide tile over several row tiles, enough rows for 256-row tiles,
# and a long weight-gradient K (N*OH*OW) split over workgroups.
case("nn-conv2d-depthwise", lambda T, d, x, w, b: NF(T).conv2d(x, w, b, stride=2, padding=1, groups=4),
     I((2, 4, 7, 6)), I((4, 1, 3, 3)), I((4,)), atol=1e-4, rtol=1e-4)
case("nn-conv2d-nonsquare-batch1", lambda T, d, x, w: NF(T).conv2d(x, w, stride=(1, 2), padding=(2, 0)),
     I((1, 3, 6, 9), layout="strided"), I((5, 3, 2, 4)), atol=1e-4, rtol=1e-4)
case("nn-conv2d-even-same", lambda T, d, x, w: NF(T).conv2d(x, w, padding="same", dilation=(1, 2)),
     I((2, 2, 5, 6)), I((3, 2, 2, 4), layout="transposed"), atol=1e-4, rtol=1e-4)
case("nn-conv2d-wide-pad", lambda T, d, x, w, b: NF(T).conv2d(x, w, b, padding=3), I((1, 2, 3, 3), layout="offset"),
     I((2, 2, 2, 2)), I((2,)), atol=1e-4, rtol=1e-4)
case("nn-conv2d-many-channels", lambda T, d, x, w, b: NF(T).conv2d(x, w, b, padding=1),
     I((2, 3, 12, 12)), I((70, 3, 3, 3)), I((70,)), atol=1e-4, rtol=1e-4)
case("nn-conv2d-big-tiles", lambda T, d, x, w: NF(T).conv2d(x, w, padding=1), I((2, 1, 128, 128)), I((40, 1, 3, 3)),
     atol=1e-4, rtol=1e-4)
case("nn-conv2d-long-k", lambda T, d, x, w: NF(T).conv2d(x, w, stride=2),
     I((4, 2, 41, 40), kind="uniform"), I((3, 2, 3, 3), kind="uniform"), atol=1e-4, rtol=1e-4)
case("nn-conv1d", lambda T, d, x, w, b: NF(T).conv1d(x, w, b, stride=2, padding=1), I((2, 3, 10)), I((5, 3, 4)),
     I((5,)), atol=1e-4, rtol=1e-4)
case("nn-conv_transpose2d", lambda T, d, x, w, b: NF(T).conv_transpose2d(x, w, b, stride=2, padding=1,
                                                                          output_padding=1),
     I((2, 3, 4, 4)), I((3, 2, 3, 3)), I((2,)), atol=1e-4, rtol=1e-4)
# The 3-d family (issue 22: torchvision's ops.misc, video models), the 1-d and 2-d forms' N-d code:
# groups, stride, padding (incl. "same" with an even kernel), dilation, bias; transposed with
# output_padding, groups and dilation; pooling with ceil_mode, count_include_pad, divisor_override,
# return_indices (flat offsets into D*H*W), unbatched; adaptive windows of unequal length.
case("nn-conv3d", lambda T, d, x, w, b: NF(T).conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1),
                                                     groups=2),
     I((2, 4, 5, 4, 3)), I((6, 2, 3, 2, 2)), I((6,)), atol=1e-4, rtol=1e-4)
case("nn-conv3d-same-unbatched", lambda T, d, x, w: NF(T).conv3d(x, w, padding="same"), I((2, 3, 4, 5)),
     I((3, 2, 2, 3, 2)), atol=1e-4, rtol=1e-4)
case("nn-conv_transpose3d", lambda T, d, x, w, b: NF(T).conv_transpose3d(x, w, b, stride=2, padding=1,
                                                                          output_padding=(1, 0, 1)),
     I((1, 4, 3, 2, 3)), I((4, 3, 2, 3, 2)), I((3,)), atol=1e-4, rtol=1e-4)
case("nn-conv_transpose3d-groups-dilation", lambda T, d, x, w: NF(T).conv_transpose3d(x, w, stride=(1, 2, 1), groups=2,
                                                                                     dilation=(1, 1, 2)),
     I((1, 4, 2, 3, 2)), I((4, 2, 2, 2, 2)), atol=1e-4, rtol=1e-4)
case("nn-conv_transpose1d", lambda T, d, x, w, b: NF(T).conv_transpose1d(x, w, b, stride=2, padding=1,
                                                                          output_padding=1),
     I((2, 4, 5)), I((4, 3, 3)), I((3,)), atol=1e-4, rtol=1e-4)
case("nn-max_pool3d-indices", lambda T, d, x: NF(T).max_pool3d(x, 3, stride=2, padding=1, return_indices=True),
     I((2, 2, 5, 4, 5), kind="unique"))
case("nn-max_pool3d-ceil-dilation", lambda T, d, x: NF(T).max_pool3d(x, (2, 3, 2), stride=(2, 2, 3), dilation=(1, 1, 2),
                                                                     ceil_mode=True, return_indices=True),
     I((1, 2, 5, 6, 7), kind="unique"))
case("nn-max_pool3d-unbatched", lambda T, d, x: NF(T).max_pool3d(x, 2), I((2, 4, 4, 5), kind="unique"))
case("nn-avg_pool3d", lambda T, d, x: (NF(T).avg_pool3d(x, 3, stride=2, padding=1),
                                       NF(T).avg_pool3d(x, 3, stride=2, padding=1, count_include_pad=False,
                                                        ceil_mode=True),
                                       NF(T).avg_pool3d(x, 2, divisor_override=3)), I((2, 2, 5, 4, 6)))
case("nn-adaptive_pool3d", lambda T, d, x: (NF(T).adaptive_avg_pool3d(x, (2, None, 3)),
                                            NF(T).adaptive_max_pool3d(x, (3, 2, 4))), I((2, 2, 5, 4, 7), kind="unique"),
     atol=1e-5, rtol=1e-4)
case("nn-pool-indices-1d-2d", lambda T, d, x: (NF(T).max_pool1d(x[:, :, 0], 3, 2, padding=1, return_indices=True),
                                               NF(T).max_pool2d(x, 3, 2, padding=1, return_indices=True,
                                                                ceil_mode=True),
                                               NF(T).avg_pool1d(x[:, :, 0], 3, 2, padding=1,
                                                                count_include_pad=False)),
     I((2, 3, 6, 7), kind="unique"))
case("nn-max_pool2d", lambda T, d, x: NF(T).max_pool2d(x, 2), I((2, 3, 6, 6), kind="unique"))
case("nn-max_pool2d-stride-pad", lambda T, d, x: NF(T).max_pool2d(x, 3, stride=2, padding=1),
     I((1, 2, 7, 6), kind="unique"))
case("nn-avg_pool2d", lambda T, d, x: NF(T).avg_pool2d(x, 3, stride=2, padding=1), I((2, 2, 7, 7)))
case("nn-adaptive_avg_pool2d", lambda T, d, x: NF(T).adaptive_avg_pool2d(x, (3, 2)), I((2, 3, 7, 5)))
case("nn-layer_norm", lambda T, d, x, w, b: NF(T).layer_norm(x, (6,), w, b), I((3, 4, 6)), I((6,)), I((6,)),
     atol=1e-4, rtol=1e-4)
case("nn-layer_norm-2d", lambda T, d, x: NF(T).layer_norm(x, (4, 6)), I((3, 4, 6)), atol=1e-4, rtol=1e-4)
# One kernel on webgpu: odd rows over several threads, many short rows per workgroup, strided and
# transposed input, weight or bias alone, rows longer than its registers hold (4100 > 16 * 256).
case("nn-layer_norm-odd-rows", lambda T, d, x, w, b: NF(T).layer_norm(x, (37,), w, b, eps=1e-3),
     I((5, 37), kind="uniform", low=2, high=3), I((37,)), I((37,)), atol=1e-4, rtol=1e-4)
case("nn-layer_norm-short-rows", lambda T, d, x, w: NF(T).layer_norm(x, (3,), w), I((300, 3)), I((3,)),
     atol=1e-4, rtol=1e-4)
case("nn-layer_norm-strided", lambda T, d, x, b: NF(T).layer_norm(x, (5,), bias=b), I((4, 5), layout="strided"),
     I((5,)), atol=1e-4, rtol=1e-4)
case("nn-layer_norm-transposed-2d", lambda T, d, x, w: NF(T).layer_norm(x, (3, 4), w),
     I((2, 3, 4), layout="transposed"), I((3, 4), layout="transposed"), atol=1e-4, rtol=1e-4)
case("nn-layer_norm-long-rows", lambda T, d, x, w, b: NF(T).layer_norm(x, (4100,), w, b),
     I((2, 4100), kind="uniform", low=2, high=3),
     I((4100,)), I((4100,), layout="offset"), atol=1e-4, rtol=1e-4)
case("nn-layer_norm-1024", lambda T, d, x: NF(T).layer_norm(x, (1024,)), I((6, 1024)), atol=1e-4, rtol=1e-4)
case("nn-group_norm", lambda T, d, x, w, b: NF(T).group_norm(x, 2, w, b), I((2, 4, 3, 3)), I((4,)), I((4,)),
     atol=1e-4, rtol=1e-4)
case("nn-rms_norm", lambda T, d, x, w: NF(T).rms_norm(x, (6,), w), I((3, 6)), I((6,)), atol=1e-4, rtol=1e-4)
case("nn-batch_norm-train", lambda T, d, x, w, b: NF(T).batch_norm(x, None, None, w, b, training=True),
     I((4, 3, 2, 2)), I((3,)), I((3,)), atol=1e-4, rtol=1e-4)
case("nn-batch_norm-eval", lambda T, d, x, m, v: NF(T).batch_norm(x, m, v), I((4, 3)), I((3,)),
     I((3,), kind="positive"), atol=1e-4, rtol=1e-4)
case("nn-softplus", lambda T, d, x: NF(T).softplus(x, beta=2.0), I((3, 5)))
case("nn-leaky_relu-elu", lambda T, d, x: (NF(T).leaky_relu(x, 0.2), NF(T).elu(x)), I((3, 5)))
case("nn-hardtanh-hardswish-mish", lambda T, d, x: (NF(T).hardtanh(x, -0.5, 0.5), NF(T).hardswish(x * 4),
                                                    NF(T).mish(x)), I((3, 5)), atol=1e-5, rtol=1e-4)
case("nn-dropout-eval", lambda T, d, x: NF(T).dropout(x, 0.5, training=False), I((3, 5)))
case("nn-linear-3d", lambda T, d, x, w, b: NF(T).linear(x, w, b), I((2, 3, 4)), I((5, 4)), I((5,)), atol=1e-5,
     rtol=1e-4)
case("nn-one_hot", lambda T, d, t: NF(T).one_hot(t, 5), I((2, 3), I64, kind="int", low=0, high=4))
case("nn-embedding", lambda T, d, t, w: NF(T).embedding(t, w), I((2, 3), I64, kind="int", low=0, high=6),
     I((7, 4)))
# F.embedding is a row gather (its gradient a scatter-add into the rows looked up): int32 ids,
# repeats, a padding row (no gradient), rows never looked up holding inf and NaN (which a one-hot
# matmul would spread), a strided weight, max_norm renormalising the looked-up rows in place (the
# weight is compared after the call), 1-norm, scale_grad_by_freq, a 0-d id and none at all.
case("nn-embedding-int32-padding", lambda T, d, t, w: NF(T).embedding(t, w, padding_idx=2),
     I((3, 5), I32, low=0, high=6), I((7, 4)))
case("nn-embedding-inf-rows", lambda T, d, t, w: NF(T).embedding(t, w), I((4,), I64, low=0, high=2),
     I((5, 3), values=[0.5, -1.0, 2.0, 1.5, 0.25, -3.0, 1.0, 4.0, -0.5, INF, -INF, NAN, 1.0, NAN, INF]))
case("nn-embedding-strided-weight", lambda T, d, t, w: NF(T).embedding(t, w, padding_idx=-1),
     I((2, 2, 3), I64, low=0, high=4), I((5, 3), layout="transposed"))
case("nn-embedding-max_norm", lambda T, d, t, w: (NF(T).embedding(t, w, max_norm=1.5), w.detach().clone()),
     I((2, 4), I64, low=0, high=5), I((6, 3)))
case("nn-embedding-max_norm-p1-padding", lambda T, d, t, w: (NF(T).embedding(t, w, padding_idx=0, max_norm=1.0,
                                                                          norm_type=1.0), w.detach().clone()),
     I((6,), I32, low=0, high=3), I((4, 5), kind="uniform", low=-2, high=2))
case("nn-embedding-scale_grad_by_freq", lambda T, d, t, w: NF(T).embedding(t, w, scale_grad_by_freq=True, sparse=True),
     I((3, 4), I64, low=0, high=3), I((4, 2)))
case("nn-embedding-0d-and-empty", lambda T, d, t, w: (NF(T).embedding(t[0], w), NF(T).embedding(t[:0], w)),
     I((1,), I64, low=0, high=3), I((4, 2)))
# Out-of-range ids raise IndexError: ids uploaded from the host are checked against the range
# recorded at upload (no GPU round trip), ids computed on the GPU by reading a flag back.
error("nn-embedding-out-of-range", lambda T, d, w: NF(T).embedding(T.tensor([[0, 6]], device=d), w), I((6, 2)),
      exc=IndexError)
error("nn-embedding-negative", lambda T, d, w: NF(T).embedding(T.tensor([-1], dtype=T.int32, device=d), w), I((6, 2)),
      exc=IndexError)
error("nn-embedding-computed-out-of-range", lambda T, d, t, w: NF(T).embedding(t + 4, w), I((3,), I64, low=0, high=2),
      I((6, 2)), exc=IndexError)
error("nn-embedding-float-ids", lambda T, d, t, w: NF(T).embedding(t, w), I((3,)), I((6, 2)))
case("nn-embedding-module", lambda T, d, t, w: T.nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)(t),
     I((2, 3), I32, low=0, high=3), I((4, 3)))
case("nn-sdpa", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(q, k, v), I((2, 3, 4, 8)),
     I((2, 3, 5, 8)), I((2, 3, 5, 8)), atol=1e-5, rtol=1e-4)
case("nn-sdpa-causal", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(q, k, v, is_causal=True),
     I((2, 4, 8)), I((2, 4, 8)), I((2, 4, 8)), atol=1e-5, rtol=1e-4)
case("nn-sdpa-bool-mask", lambda T, d, q, k, v, m: NF(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
     I((2, 3, 4)), I((2, 5, 4)), I((2, 5, 4)), I((3, 5), BOOL, values=[True, False, True]), atol=1e-5, rtol=1e-4)
case("nn-interpolate-nearest", lambda T, d, x: NF(T).interpolate(x, scale_factor=2, mode="nearest"),
     I((1, 2, 3, 4)))
case("nn-interpolate-bilinear", lambda T, d, x: NF(T).interpolate(x, size=(5, 7), mode="bilinear",
                                                                     align_corners=False), I((1, 2, 3, 4)),
     atol=1e-5, rtol=1e-4)
case("nn-pad-constant", lambda T, d, x: NF(T).pad(x, (1, 2, 0, 1), value=0.5), I((2, 3, 4)))
case("nn-mse-l1-smoothl1-huber", lambda T, d, a, b: (NF(T).mse_loss(a, b), NF(T).l1_loss(a, b, reduction="sum"),
                                                    NF(T).smooth_l1_loss(a, b, beta=0.5, reduction="none"),
                                                    NF(T).huber_loss(a, b, delta=0.7)), I((3, 4)), I((3, 4)),
     atol=1e-5, rtol=1e-4)
case("nn-bce", lambda T, d, p, t: NF(T).binary_cross_entropy(p, t), I((3, 4), kind="uniform", low=0.05, high=0.95),
     I((3, 4), kind="uniform", low=0, high=1), atol=1e-5, rtol=1e-4)
case("nn-bce-logits", lambda T, d, x, t, pw: NF(T).binary_cross_entropy_with_logits(x, t, pos_weight=pw),
     I((3, 4)), I((3, 4), kind="uniform", low=0, high=1), I((4,), kind="positive"), atol=1e-5, rtol=1e-4)
case("nn-cross_entropy", lambda T, d, x, t: NF(T).cross_entropy(x, t), I((6, 5)),
     I((6,), I64, kind="int", low=0, high=4), atol=1e-5, rtol=1e-4)
case("nn-cross_entropy-options", lambda T, d, x, t, w: NF(T).cross_entropy(x, t, weight=w, ignore_index=2,
                                                                          label_smoothing=0.1),
     I((6, 5)), I((6,), I64, kind="int", low=0, high=4), I((5,), kind="positive"), atol=1e-5, rtol=1e-4)
case("nn-cross_entropy-probs", lambda T, d, x, p: NF(T).cross_entropy(x, p.softmax(1), label_smoothing=0.2),
     I((4, 5)), I((4, 5)), atol=1e-5, rtol=1e-4)
case("nn-cross_entropy-spatial", lambda T, d, x, t: NF(T).cross_entropy(x, t, reduction="none"),
     I((2, 4, 3, 3)), I((2, 3, 3), I64, kind="int", low=0, high=3), atol=1e-5, rtol=1e-4)
case("nn-nll_loss", lambda T, d, x, t: NF(T).nll_loss(x.log_softmax(1), t, reduction="sum"), I((5, 4)),
     I((5,), I64, kind="int", low=0, high=3), atol=1e-5, rtol=1e-4)
case("nn-kl_div", lambda T, d, x, p: NF(T).kl_div(x.log_softmax(-1), p.softmax(-1), reduction="batchmean"),
     I((3, 5)), I((3, 5)), atol=1e-5, rtol=1e-4)
case("nn-cosine_similarity", lambda T, d, a, b: NF(T).cosine_similarity(a, b, dim=-1), I((3, 6)), I((3, 6)),
     atol=1e-5, rtol=1e-4)
# adaptive windows of unequal length (7 -> 3: lengths 3, 3, 3 overlapping; 5 -> 4), a size kept
# (None), windows over inf/NaN (masked padding must not spread them), a strided input
case("nn-adaptive_avg_pool2d-uneven", lambda T, d, x: (NF(T).adaptive_avg_pool2d(x, (4, None)),
                                                       NF(T).adaptive_avg_pool2d(x, 1)), I((1, 2, 5, 7)))
case("nn-adaptive_avg_pool2d-edge-strided", lambda T, d, x: NF(T).adaptive_avg_pool2d(x, (2, 3)),
     I((2, 3, 5, 4), kind="edge", layout="strided"))
# Issue 14's layers, through their functional forms (the modules are checked in tests/test_layers.py).
case("nn-selu-celu-logsigmoid", lambda T, d, x: (NF(T).selu(x), NF(T).celu(x, 0.7), NF(T).logsigmoid(x * 30)),
     I((3, 5)), atol=1e-5, rtol=1e-4)
case("nn-softsign-tanhshrink-threshold", lambda T, d, x: (NF(T).softsign(x), NF(T).tanhshrink(x),
                                                         NF(T).threshold(x, 0.1, -2.0)), I((3, 5)),
     atol=1e-5, rtol=1e-4)
case("nn-hardsigmoid-softmin-glu", lambda T, d, x: (NF(T).hardsigmoid(x * 4), NF(T).softmin(x, 1),
                                                   NF(T).glu(x, 0)), I((4, 5)), atol=1e-5, rtol=1e-4)
case("nn-prelu", lambda T, d, x, w, w1: (NF(T).prelu(x, w), NF(T).prelu(x, w1)), I((2, 3, 4)), I((3,)), I((1,)))
case("nn-pixel_shuffle-unshuffle", lambda T, d, x: (NF(T).pixel_shuffle(x, 2), NF(T).pixel_unshuffle(x, 2)),
     I((2, 8, 4, 6)))
case("nn-channel_shuffle-unbatched-shuffle", lambda T, d, x: (T.nn.ChannelShuffle(3)(x),
                                                             NF(T).pixel_shuffle(x[0], 3)), I((2, 9, 2, 3)))
case("nn-unfold", lambda T, d, x: NF(T).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
     I((2, 3, 5, 6), layout="transposed"))
case("nn-fold", lambda T, d, c: NF(T).fold(c, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
     I((2, 18, 12)), atol=1e-5, rtol=1e-4)
case("nn-instance_norm", lambda T, d, x, w, b: NF(T).instance_norm(x, weight=w, bias=b), I((2, 3, 4, 5)), I((3,)),
     I((3,)), atol=1e-4, rtol=1e-4)
case("nn-instance_norm-running", lambda T, d, x, m, v: (NF(T).instance_norm(x, m, v, momentum=0.3), m, v),
     I((2, 3, 6)), I((3,)), I((3,), kind="positive"), atol=1e-4, rtol=1e-4)
case("nn-bilinear", lambda T, d, a, b, w, bias: NF(T).bilinear(a, b, w, bias), I((2, 4, 3)), I((2, 4, 5)),
     I((6, 3, 5)), I((6,)), atol=1e-4, rtol=1e-4)
case("nn-pool1d", lambda T, d, x: (NF(T).max_pool1d(x, 3, 2, padding=1), NF(T).avg_pool1d(x, 2),
                                   NF(T).adaptive_avg_pool1d(x, 4), NF(T).adaptive_max_pool1d(x, 3)),
     I((2, 3, 9), kind="unique"), atol=1e-5, rtol=1e-4)
case("nn-adaptive_max_pool2d-lp_pool", lambda T, d, x: (NF(T).adaptive_max_pool2d(x, (3, 2)),
                                                        NF(T).lp_pool2d(x, 2, 2), NF(T).lp_pool1d(x[0].abs(), 3, 2)),
     I((2, 3, 5, 4), kind="unique"), atol=1e-4, rtol=1e-4)
case("nn-embedding_bag", lambda T, d, i, o, w, p: (NF(T).embedding_bag(i, w, o),
                                                   NF(T).embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
                                                   NF(T).embedding_bag(i, w, o, mode="max", padding_idx=2),
                                                   NF(T).embedding_bag(i.reshape(2, 4), w, mode="sum")),
     I((8,), I64, values=[1, 2, 4, 2, 0, 5, 5, 3]), I((3,), I64, values=[0, 3, 5]), I((6, 4)), I((8,)),
     atol=1e-5, rtol=1e-4)
case("nn-embedding_bag-options", lambda T, d, i, o, w, p: (
    NF(T).embedding_bag(i, w, o, mode="mean", padding_idx=2), NF(T).embedding_bag(i, w, o, mode="max", padding_idx=-1),
    NF(T).embedding_bag(i, w, T.cat([o, T.tensor([8], device=d)]), mode="sum", include_last_offset=True,
                        per_sample_weights=p),
    NF(T).embedding_bag(i, w, T.tensor([0, 0, 3, 3, 8], device=d), mode="max"),   # empty bags: zeros
    NF(T).embedding_bag(i, w.detach().clone(), o, max_norm=1.0, mode="sum"),
    NF(T).embedding_bag(i.reshape(4, 2), w, mode="max"), NF(T).embedding_bag(i[:0], w, T.tensor([0, 0], device=d)),
    T.nn.EmbeddingBag.from_pretrained(w, mode="sum", padding_idx=5)(i.reshape(2, 4)),
    T.embedding_bag(w, i, o, False, 2, False, None, False, 2), T.embedding_bag(w, i, o, False, 1),
    T.embedding_bag(w, i.int(), o.int(), False, 0)),
     I((8,), I64, values=[1, 2, 4, 2, 0, 5, 5, 3]), I((3,), I64, values=[0, 3, 5]), I((6, 4)), I((8,)),
     atol=1e-5, rtol=1e-4)
error("nn-embedding_bag-offsets-start", lambda T, d, i, w: NF(T).embedding_bag(i, w, T.tensor([1], device=d)),
      I((3,), I64, values=[0, 1, 2]), I((4, 2)))
error("nn-embedding_bag-index-range", lambda T, d, i, w: NF(T).embedding_bag(i, w, T.tensor([0], device=d)),
      I((3,), I64, values=[0, 4, 2]), I((4, 2)))
error("nn-embedding_bag-mode", lambda T, d, i, w: NF(T).embedding_bag(i, w, T.tensor([0], device=d), mode="min"),
      I((3,), I64, values=[0, 1, 2]), I((4, 2)), exc=ValueError)
error("nn-embedding_bag-weights-shape", lambda T, d, i, w: NF(T).embedding_bag(
    i, w, T.tensor([0], device=d), mode="sum", per_sample_weights=w[0]), I((3,), I64, values=[0, 1, 2]), I((4, 2)),
      exc=ValueError)
error("nn-embedding_bag-max-scale-grad", lambda T, d, i, w: NF(T).embedding_bag(
    i, w, T.tensor([0], device=d), mode="max", scale_grad_by_freq=True), I((3,), I64, values=[0, 1, 2]), I((4, 2)),
      exc=ValueError)
case("nn-losses-pairs", lambda T, d, a, b, t: (NF(T).cosine_embedding_loss(a, b, t, margin=0.2),
                                               NF(T).margin_ranking_loss(a[:, 0], b[:, 0], t, 0.1, reduction="sum"),
                                               NF(T).triplet_margin_loss(a, b, a.flip(0), swap=True)),
     I((4, 5)), I((4, 5)), I((4,), values=[1.0, -1.0, -1.0, 1.0]), atol=1e-5, rtol=1e-4)
case("nn-losses-probabilistic", lambda T, d, x, y, v: (NF(T).multilabel_soft_margin_loss(x, y.sigmoid()),
                                                       NF(T).poisson_nll_loss(x, y.abs() * 3, full=True),
                                                       NF(T).poisson_nll_loss(x.abs() + 0.1, y.abs(),
                                                                              log_input=False),
                                                       NF(T).gaussian_nll_loss(x, y, v, full=True),
                                                       NF(T).gaussian_nll_loss(x, y, v[:, 0])),
     I((3, 4)), I((3, 4)), I((3, 4), kind="positive"), atol=1e-5, rtol=1e-4)


# -- issue 11: silently wrong results found by real and random programs --------------------------
case("nn-conv2d-strided-bias", lambda T, d, x, w, b: NF(T).conv2d(x, w, b), I((1, 1, 5, 4)), I((2, 1, 3, 1)),
     I((2,), layout="strided"), atol=1e-4, rtol=1e-4)
case("nn-cosine_similarity-broadcast", lambda T, d, a, b, c: (NF(T).cosine_similarity(a, b, dim=-1),
                                                              NF(T).cosine_similarity(c, b, dim=0)),
     I((3, 2)), I((1, 1)), I((4, 1, 2)), atol=1e-5, rtol=1e-4)
case("nn-interpolate-scale-factor", lambda T, d, x: (
    NF(T).interpolate(x, scale_factor=0.5, mode="bilinear"),
    NF(T).interpolate(x, scale_factor=0.5, mode="bilinear", align_corners=True),
    NF(T).interpolate(x, scale_factor=(0.6, 1.7), mode="bilinear", recompute_scale_factor=True),
    NF(T).interpolate(x, scale_factor=0.6, mode="nearest"),
    NF(T).interpolate(x, scale_factor=(1.5, 2.5), mode="nearest"),
    NF(T).interpolate(x, size=(3, 4), mode="bilinear", align_corners=True)), I((1, 2, 7, 3)), atol=1e-5, rtol=1e-4)
case("nn-hardtanh-relu6-int", lambda T, d, x: (NF(T).hardtanh(x), NF(T).relu6(x * 3), NF(T).hardtanh(x, -2.5, 2.5)),
     I((8,), I64))
# infinities stay infinities: a -inf logit of another class, an ignored row with -inf, a fully masked row
case("nn-cross_entropy-inf-logit", lambda T, d, x, t: (NF(T).cross_entropy(x, t), NF(T).cross_entropy(x, t, reduction="none")),
     I((3, 3), values=[0.0, -INF, 1.0, 2.0, 0.5, -INF, -1.0, 0.0, 0.0]), I((3,), I64, values=[0, 1, 2]),
     atol=1e-5, rtol=1e-4)
case("nn-nll_loss-ignored-inf", lambda T, d, x, t, w: (NF(T).nll_loss(x, t, ignore_index=1),
                                                       NF(T).nll_loss(x, t, weight=w, ignore_index=1, reduction="sum")),
     I((2, 3), values=[-INF, -INF, -1.0, -0.5, -2.0, -3.0]), I((2,), I64, values=[1, 0]), I((3,), kind="positive"),
     atol=1e-5, rtol=1e-4)
case("nn-sdpa-fully-masked-row", lambda T, d, q, k, v, m: NF(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
     I((2, 3, 4)), I((2, 5, 4)), I((2, 5, 4)),
     I((3, 5), BOOL, values=[True, False, True, True, False, False, False, False, False, False, True, True, True,
                             True, True]), atol=1e-5, rtol=1e-4)
# (detached: the gradient of a constant row is ill-conditioned, torch's is cancellation noise)
case("nn-layer_norm-group_norm-constant-rows", lambda T, d, x, y: (NF(T).layer_norm(x.detach(), (64,)),
                                                                   NF(T).group_norm(y.detach(), 2),
                                                                   NF(T).layer_norm(x.detach() * 1e-30, (64,))),
     I((2, 64), values=[5.118583e7]), I((1, 4, 16), values=[5.118583e7, 5.118583e7, 5.118583e7, 5.118583e7,
                                                             -3.1e5]), atol=1e-4, rtol=1e-4)
error("nn-cross_entropy-target-out-of-range", lambda T, d, x, t: NF(T).cross_entropy(x, t), I((2, 3)),
      I((2,), I64, values=[0, 3]), exc=IndexError)
error("nn-nll_loss-negative-target", lambda T, d, x, t: NF(T).nll_loss(x, t), I((2, 3)), I((2,), I64, values=[0, -2]),
      exc=IndexError)
# inputs torch refuses (issue 11 item 10)
error("nn-one_hot-negative", lambda T, d, t: NF(T).one_hot(t), I((2,), I64, values=[-1, 2]))
error("nn-one_hot-too-large", lambda T, d, t: NF(T).one_hot(t, 3), I((2,), I64, values=[1, 3]))
error("nn-layer_norm-wrong-shape", lambda T, d, x: NF(T).layer_norm(x, (4,)), I((2, 3)))
error("nn-pad-odd-length", lambda T, d, x: NF(T).pad(x, (1,)), I((3, 3)))
error("nn-pad-circular-wraps-twice", lambda T, d, x: NF(T).pad(x, (4, 4), mode="circular"), I((1, 1, 3)))
error("nn-avg_pool2d-pad-over-half", lambda T, d, x: NF(T).avg_pool2d(x, 2, padding=2), I((1, 1, 4, 4)))
error("nn-max_pool2d-pad-over-half", lambda T, d, x: NF(T).max_pool2d(x, 3, padding=2), I((1, 1, 4, 4)))
error("nn-conv1d-same-strided", lambda T, d, x, w: NF(T).conv1d(x, w, stride=2, padding="same"), I((1, 1, 5)),
      I((1, 1, 3)))
error("nn-batch_norm-one-value-per-channel", lambda T, d, x: NF(T).batch_norm(x, None, None, training=True),
      I((1, 3)), exc=ValueError)
error("nn-group_norm-one-value-per-channel", lambda T, d, x: NF(T).group_norm(x, 3), I((1, 3, 1)), exc=ValueError)
error("nn-conv_transpose2d-empty-weight", lambda T, d, x, w: NF(T).conv_transpose2d(x, w), I((1, 1, 2, 2)),
      I((1, 0, 2, 2)))
case("nn-pad-circular-full-wrap", lambda T, d, x: NF(T).pad(x, (3, 3), mode="circular"), I((1, 1, 3)))
case("nn-pool-pad-half", lambda T, d, x: (NF(T).avg_pool2d(x, 2, padding=1), NF(T).max_pool2d(x, 3, padding=1)),
     I((1, 1, 4, 4)))
error("nn-conv_transpose2d-output-too-small", lambda T, d, x, w: NF(T).conv_transpose2d(x, w, padding=1),
      I((1, 1, 1, 1)), I((1, 1, 1, 1)))
case("nn-conv_transpose2d-empty-batch", lambda T, d, x, w: NF(T).conv_transpose2d(x, w), I((0, 1, 2, 2)),
     I((1, 2, 2, 2)))


# -- issue 22: the remaining torch.nn functional forms (derived from existing ops) ------------------
case("nn-inplace-activations", lambda T, d, x: [f(x.clone()) for f in (
    NF(T).relu_, NF(T).selu_, NF(T).hardtanh_, lambda v: NF(T).elu_(v, 0.5), lambda v: NF(T).celu_(v, 2.0),
    lambda v: NF(T).leaky_relu_(v, 0.2), lambda v: NF(T).threshold_(v, 0.1, -3.0),
    lambda v: NF(T).rrelu_(v, 0.1, 0.3), lambda v: NF(T).rrelu(v, training=False))],
    I((3, 4), values=[-2.0, -0.5, -0.0, 0.0, 0.1, 0.5, 2.0, -1.0, 1.0, 3.0, -3.0, 0.2]), atol=1e-6, rtol=1e-5)
case("nn-pool-with-indices-unpool", lambda T, d, x: (
    NF(T).max_pool1d_with_indices(x[0], 2), NF(T).max_pool2d_with_indices(x, 2, 2, 1),
    NF(T).max_unpool2d(*NF(T).max_pool2d(x, 2, return_indices=True), 2),
    NF(T).max_unpool2d(*NF(T).max_pool2d(x, 2, return_indices=True), 2, output_size=(5, 4)),
    NF(T).max_unpool1d(*NF(T).max_pool1d(x[0], 3, 2, 1, return_indices=True), 3, 2, 1, output_size=(4,)),
    NF(T).max_unpool3d(*NF(T).max_pool3d(x.unsqueeze(0), (1, 2, 2), return_indices=True), (1, 2, 2),
                       output_size=(3, 5, 4))),
    I((2, 3, 5, 4), kind="unique"), atol=1e-6, rtol=1e-5)
case("nn-lp_pool3d-lrn-shuffle", lambda T, d, x: (
    NF(T).lp_pool3d(x.abs(), 2, (2, 2, 1)), NF(T).local_response_norm(x, 3), NF(T).local_response_norm(x, 2, k=2.0),
    NF(T).local_response_norm(x.flatten(2), 4, alpha=0.1, beta=0.5), NF(T).native_channel_shuffle(x, 2)),
    I((2, 4, 3, 2, 2)), atol=1e-5, rtol=1e-4)
case("nn-conv_tbc-pdist", lambda T, d, x, w, b, p: (NF(T).conv_tbc(x, w, b, 1), NF(T).pdist(p), NF(T).pdist(p, 1)),
     I((5, 2, 3)), I((3, 3, 4)), I((4,)), I((4, 3)), atol=1e-4, rtol=1e-4)
case("nn-margin-losses", lambda T, d, x, y, t, w: (
    NF(T).multi_margin_loss(x, y), NF(T).multi_margin_loss(x, y, p=2, margin=0.5, weight=w, reduction="none"),
    NF(T).multi_margin_loss(x[0], y[:1], reduction="sum"), NF(T).multilabel_margin_loss(x, t),
    NF(T).multilabel_margin_loss(x, t, reduction="none"), NF(T).multilabel_margin_loss(x[1], t[1]),
    NF(T).triplet_margin_with_distance_loss(x, x.flip(0), x * 2, swap=True),
    NF(T).triplet_margin_with_distance_loss(x, x.flip(0), x + 1, margin=0.5, reduction="none",
                                            distance_function=lambda a, b: (a - b).abs().sum(-1))),
    I((3, 4)), I((3,), I64, values=[2, 0, 3]), I((3, 4), I64, values=[3, 0, -1, 1, 1, -1, 2, 0, -1, 0, 0, 0]),
    I((4,), kind="positive"), atol=1e-5, rtol=1e-4)
error("nn-multi_margin_loss-p3", lambda T, d, x, y: NF(T).multi_margin_loss(x, y, p=3), I((2, 3)),
      I((2,), I64, values=[0, 1]), exc=ValueError)
error("nn-triplet-with-distance-margin", lambda T, d, x: NF(T).triplet_margin_with_distance_loss(x, x, x, margin=0),
      I((2, 3)), exc=ValueError)
error("nn-lrn-2d", lambda T, d, x: NF(T).local_response_norm(x, 2), I((2, 3)), exc=ValueError)
error("nn-pdist-3d", lambda T, d, x: NF(T).pdist(x), I((2, 3, 1)))
error("nn-max_unpool2d-index-beyond-output", lambda T, d, x, i: NF(T).max_unpool2d(x, i, 2), I((1, 1, 1, 2)),
      I((1, 1, 1, 2), I64, values=[0, 9]))

// The bindings of quantized_gemm.wgsl: out = x @ W.T, W as packed words
// (qdata), per-row or per-group scales and, for int4, zero points (webtorch/ao/quantization).
// params: M, N, K, words per row of W, group size (int4), x's offset, 1 + bias's offset (0: no bias:
// out = (x @ W.T rounded to $O) + bias rounded, as the layer's separate add rounds it).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$O>;
@group(0) @binding(2) var<storage, read> x: array<$X>;
@group(0) @binding(3) var<storage, read> qdata: array<u32>;
@group(0) @binding(4) var<storage, read> scale: array<$S>;
$zero_binding
@group(0) @binding($bias_at) var<storage, read> bias: array<$O>;

// out's value for column n: the product's total (rounded as stored), plus the bias where there is one
fn with_bias(v: $O, n: u32) -> $O {
  if (params[6] == 0u) { return v; }
  return wt_store(f32(v) + f32(bias[params[6] - 1u + n]));
}

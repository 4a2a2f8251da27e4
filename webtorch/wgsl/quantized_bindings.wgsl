// The bindings of quantized_gemv.wgsl and quantized_gemm.wgsl: out = x @ W.T, W as packed words
// (qdata), per-row or per-group scales and, for int4, zero points (webtorch/ao/quantization).
// params: M, N, K, words per row of W, group size (int4), x's offset.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$O>;
@group(0) @binding(2) var<storage, read> x: array<$X>;
@group(0) @binding(3) var<storage, read> qdata: array<u32>;
@group(0) @binding(4) var<storage, read> scale: array<$S>;
$zero_binding

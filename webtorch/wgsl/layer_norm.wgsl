// layer_norm (or rms_norm) of each row in one kernel (rows over threads: row_threads.wgsl): the mean, as the row's
// first value x0 plus d, the mean of x - x0, kept in those two parts (x - mean = (x - x0) - d: exact for a constant
// row, and the digits the values share do not round away, not even in the mean), then the mean of (x - mean)^2 (a second pass over the values, which does not
// cancel like E[x^2] - mean^2), then (x - mean) * rstd * weight[r] + bias[r]. A layer_norm row whose largest |x|
// is 2^50 or more is normalised as x * inv (inv a power of two near 1 / max |x|: exact), with eps * inv^2, so its
// squares cannot overflow float32 (its variance did: rstd 0 and zeros out; torch's float32 CPU kernel gives NaN
// there, float64 the finite answer this gives); other rows have inv = 1, bit for bit as before. A row that fits in
// registers is read once and written once (the residual sum as it is read); longer rows (tpr = 256) are read four times.
// params: the layout of rows.wgsl with one reduced dim (row_len, row stride), then tpr, eps (f32
// bits), flags (1: weight, 2: bias, 4: rms_norm: the mean taken as 0, so x * rstd with rstd of the mean
// of x^2, 8: the weight multiplies the normalised value rounded to $S, as transformers' Llama RMSNorm
// computes `weight * h.to(dtype)`, 16: the row is x + residual, each sum rounded to $S as an add
// stores it, and written to sum_out too: a residual add and the norm after it), weight offset, bias
// offset, residual's offset minus x's (mod 2^32; residual laid out as x). weight and bias are contiguous
// (unused bindings hold any buffer). The output is contiguous: row o, element r at o * row_len + r.
// x, weight, bias and the output are stored as $S (float16: f16), computed in f32 and rounded once
// on the store, as PyTorch's CUDA half layer_norm.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read> x: array<$S>;
@group(0) @binding(3) var<storage, read> weight: array<$S>;
@group(0) @binding(4) var<storage, read> bias: array<$S>;
@group(0) @binding(5) var<storage, read_write> sum_out: array<$S>;
@group(0) @binding(6) var<storage, read> residual: array<$S>;

// x's element i (flags 16: plus residual's, rounded as the add stores it)
fn load(i: u32, rb: u32) -> f32 {
  if ((params[rb + 4u] & 16u) == 0u) { return f32(x[i]); }
  return f32(wt_store(f32(x[i]) + f32(residual[i + params[rb + 7u]])));
}

fn affine(y: f32, r: u32, rb: u32) -> f32 {
  let flags = params[rb + 4u];
  var v = y;
  if ((flags & 8u) != 0u) { v = f32(wt_store(v)); }
  if ((flags & 1u) != 0u) { v = v * f32(weight[params[rb + 5u] + r]); }
  if ((flags & 2u) != 0u) { v = v + f32(bias[params[rb + 6u] + r]); }
  return v;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
$row_threads_start
  let eps = bitcast<f32>(params[rb + 3u]);
  let n = f32(row_len);
  let rms = (params[rb + 4u] & 4u) != 0u;
  var x0 = 0.0f;
  if (live && !rms) { x0 = load(base, rb); }
  if (row_len <= K * tpr) {  // uniform: the row in registers
    var v: array<f32, 16>;
    var a = 0.0f;
    for (var k = 0u; k < K; k = k + 1u) {
      let r = lane + k * tpr;
      if (live && r < row_len) {
        v[k] = load(base + r * stride, rb);
        a = max(a, abs(v[k]));
        if ((params[rb + 4u] & 16u) != 0u) { sum_out[dst + r] = wt_store(v[k]); }  // (load rounded it as stored)
      }
    }
    var inv = 1.0f;
    if (!rms) { inv = row_scale(row_join(a, 0.0f, lid, tpr, 0u).x); }
    let x0s = x0 * inv;
    var s = 0.0f;
    for (var k = 0u; k < K; k = k + 1u) {
      if (live && lane + k * tpr < row_len) {
        v[k] = v[k] * inv;
        s = s + (v[k] - x0s);
      }
    }
    var d = 0.0f;  // the mean is x0s + d, kept in two parts: x - mean is (x - x0s) - d
    if (!rms) { d = row_join(0.0f, s, lid, tpr, 1u).y / n; }
    for (var k = 0u; k < K; k = k + 1u) { v[k] = (v[k] - x0s) - d; }
    var q = 0.0f;
    for (var k = 0u; k < K; k = k + 1u) {
      if (live && lane + k * tpr < row_len) { q = q + v[k] * v[k]; }
    }
    let rstd = 1.0f / sqrt(row_join(0.0f, q, lid, tpr, 1u).y / n + eps * inv * inv);
    for (var k = 0u; k < K; k = k + 1u) {
      let r = lane + k * tpr;
      if (live && r < row_len) {
        out[dst + r] = wt_store(affine(v[k] * rstd, r, rb));
      }
    }
    return;
  }
  var inv = 1.0f;
  var d = 0.0f;
  if (!rms) {
    var a = 0.0f;
    for (var r = lane; r < row_len; r = r + tpr) { a = max(a, abs(load(base + r * stride, rb))); }
    inv = row_scale(row_join(a, 0.0f, lid, tpr, 0u).x);
    var s = 0.0f;
    for (var r = lane; r < row_len; r = r + tpr) { s = s + (load(base + r * stride, rb) * inv - x0 * inv); }
    d = row_join(0.0f, s, lid, tpr, 1u).y / n;
  }
  let x0s = x0 * inv;
  var q = 0.0f;
  for (var r = lane; r < row_len; r = r + tpr) {
    let c = (load(base + r * stride, rb) * inv - x0s) - d;
    q = q + c * c;
  }
  let rstd = 1.0f / sqrt(row_join(0.0f, q, lid, tpr, 1u).y / n + eps * inv * inv);
  for (var r = lane; r < row_len; r = r + tpr) {
    out[dst + r] = wt_store(affine(((load(base + r * stride, rb) * inv - x0s) - d) * rstd, r, rb));
    if ((params[rb + 4u] & 16u) != 0u) { sum_out[dst + r] = wt_store(load(base + r * stride, rb)); }
  }
}

// The power of two a row is multiplied by (see the top): 2^(1 - e) for a largest |x| = f * 2^e >= 2^50 (so
// |x * inv| < 2), 1 below that or for an inf or NaN one (whose result is inf or NaN anyway).
fn row_scale(largest: f32) -> f32 {
  if (largest >= 1125899906842624.0f && largest <= 3.4028234663852886e38f) {
    return ldexp(1.0f, 1 - frexp(largest).exp);
  }
  return 1.0f;
}

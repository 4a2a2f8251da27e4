// layer_norm (or rms_norm) of each row in one kernel (rows over threads: row_threads.wgsl): the mean, as the row's
// first value x0 plus the mean of x - x0 (exact for a constant row, and the digits the values share
// do not round away), then the mean of (x - mean)^2 (a second pass over the values, which does not
// cancel like E[x^2] - mean^2), then (x - mean) * rstd * weight[r] + bias[r]. A row that fits in registers is read once and
// written once; longer rows (tpr = 256) are read three times.
// params: the layout of rows.wgsl with one reduced dim (row_len, row stride), then tpr, eps (f32
// bits), flags (1: weight, 2: bias, 4: rms_norm: the mean taken as 0, so x * rstd with rstd of the mean
// of x^2, 8: the weight multiplies the normalised value rounded to $S, as transformers' Llama RMSNorm
// computes `weight * h.to(dtype)`), weight offset, bias offset. weight and bias are contiguous
// (unused bindings hold any buffer). The output is contiguous: row o, element r at o * row_len + r.
// x, weight, bias and the output are stored as $S (float16: f16), computed in f32 and rounded once
// on the store, as PyTorch's CUDA half layer_norm.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read> x: array<$S>;
@group(0) @binding(3) var<storage, read> weight: array<$S>;
@group(0) @binding(4) var<storage, read> bias: array<$S>;

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
  if (live && !rms) { x0 = f32(x[base]); }
  if (row_len <= K * tpr) {  // uniform: the row in registers
    var v: array<f32, 16>;
    var s = 0.0f;
    for (var k = 0u; k < K; k = k + 1u) {
      let r = lane + k * tpr;
      if (live && r < row_len) {
        v[k] = f32(x[base + r * stride]);
        s = s + (v[k] - x0);
      }
    }
    var mean = 0.0f;
    if (!rms) { mean = x0 + row_join(0.0f, s, lid, tpr, 1u).y / n; }
    var q = 0.0f;
    for (var k = 0u; k < K; k = k + 1u) {
      if (live && lane + k * tpr < row_len) {
        let c = v[k] - mean;
        q = q + c * c;
      }
    }
    let rstd = 1.0f / sqrt(row_join(0.0f, q, lid, tpr, 1u).y / n + eps);
    for (var k = 0u; k < K; k = k + 1u) {
      let r = lane + k * tpr;
      if (live && r < row_len) { out[dst + r] = wt_store(affine((v[k] - mean) * rstd, r, rb)); }
    }
    return;
  }
  var mean = 0.0f;
  if (!rms) {
    var s = 0.0f;
    for (var r = lane; r < row_len; r = r + tpr) { s = s + (f32(x[base + r * stride]) - x0); }
    mean = x0 + row_join(0.0f, s, lid, tpr, 1u).y / n;
  }
  var q = 0.0f;
  for (var r = lane; r < row_len; r = r + tpr) {
    let c = f32(x[base + r * stride]) - mean;
    q = q + c * c;
  }
  let rstd = 1.0f / sqrt(row_join(0.0f, q, lid, tpr, 1u).y / n + eps);
  for (var r = lane; r < row_len; r = r + tpr) {
    out[dst + r] = wt_store(affine((f32(x[base + r * stride]) - mean) * rstd, r, rb));
  }
}

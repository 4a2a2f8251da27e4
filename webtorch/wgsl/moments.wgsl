// The moments of each row (rows.wgsl's layout: batch_norm's channels, instance_norm's (sample, channel)
// slices), one workgroup per row: out[o] = the mean of x * inv, out[n + o] = the mean of (x * inv - mean)^2
// (biased), out[2n + o] = inv, a power of two (exact) that brings the row's largest |x| into [2, 4) where it
// is 4 or more, else 1: the squares of x * inv cannot overflow float32 (those of x itself do from ~1.8e19:
// inf, where float64's statistics and torch's, kept in double, are finite), and its normalisation
// (x * inv - mean) / sqrt(var + eps * inv^2) equals the unscaled one (the scaling is exact). The mean is
// x0 + d, x0 the row's first value (0 if inf or NaN, whose mean is inf or NaN anyway), d the mean of
// x * inv - x0: exact for a constant row, which keeps inv = 1. Three passes over the row: max |x|, the mean, the squares.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;

const WG = 256u;
var<workgroup> partial: array<f32, 256>;

// The workgroup's values joined (max or sum); every thread gets the result.
fn join_all(v: f32, lid: u32, take_max: bool) -> f32 {
  partial[lid] = v;
  workgroupBarrier();
  for (var step = WG / 2u; step > 0u; step = step >> 1u) {
    if (lid < step) {
      if (take_max) {
        partial[lid] = max(partial[lid], partial[lid + step]);
      } else {
        partial[lid] = partial[lid] + partial[lid + step];
      }
    }
    workgroupBarrier();
  }
  let result = partial[0];
  workgroupBarrier();  // the next join overwrites partial
  return result;
}

// 2^(2 - e) for a largest |x| = f * 2^e >= 4 (so |x * inv| < 4; e <= 128 keeps inv a normal number), 1 below
// that or for an inf or NaN one.
fn row_scale(largest: f32) -> f32 {
  if (largest >= 4.0f && largest <= 3.4028234663852886e38f) {
    return ldexp(1.0f, 2 - frexp(largest).exp);
  }
  return 1.0f;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let n_out = params[0];
  let o = wid.y * nwg.x + wid.x;
  let live = o < n_out;  // threads past the last row still take part in the barriers
  var row_len = 0u;
  if (live) { row_len = params[1]; }
  var a = 0.0f;
  for (var r = lid; r < row_len; r = r + WG) { a = max(a, abs(x[element_offset(o, r)])); }
  let inv = row_scale(join_all(a, lid, true));
  var x0 = 0.0f;
  if (row_len > 0u) { x0 = x[element_offset(o, 0u)] * inv; }
  if (!(abs(x0) <= 3.4028234663852886e38f)) { x0 = 0.0f; }
  var s = 0.0f;
  for (var r = lid; r < row_len; r = r + WG) { s = s + (x[element_offset(o, r)] * inv - x0); }
  let d = join_all(s, lid, false) / f32(params[1]);
  var q = 0.0f;
  for (var r = lid; r < row_len; r = r + WG) {
    let c = (x[element_offset(o, r)] * inv - x0) - d;
    q = q + c * c;
  }
  let variance = join_all(q, lid, false) / f32(params[1]);
  if (live && lid == 0u) {
    if (variance == 0.0f) {  // a constant row: unscaled (its eps * inv^2 could underflow: 1 / sqrt(0) for 1e30)
      out[o] = x0 / inv;
      out[2u * n_out + o] = 1.0f;
    } else {
      out[o] = x0 + d;
      out[2u * n_out + o] = inv;
    }
    out[n_out + o] = variance;
  }
}

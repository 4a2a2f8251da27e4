// Rows spread over threads, for softmax.wgsl and layer_norm.wgsl: each row gets tpr threads (a power
// of two, params word after the row stride; a workgroup of 256 serves 256 / tpr rows, so short rows
// do not idle threads). A row of up to K * tpr elements fits in registers: K per thread, elements
// lane + k * tpr (coalesced). Rows are laid out as in rows.wgsl, with one reduced dim. Each kernel's
// main begins with row_threads_start.wgsl (its $row_threads_start): the thread's row and lane.
const WG = 256u;
const K = 16u;

var<workgroup> partial_m: array<f32, 256>;
var<workgroup> partial_s: array<f32, 256>;

// (max, sum of exp(x - max)) of two parts. A part whose max is -inf adds nothing (its sum is 0):
// this keeps -inf - -inf (NaN) out while the row may still have finite values.
fn join(m1: f32, s1: f32, m2: f32, s2: f32) -> vec2<f32> {
  let m = wt_max(m1, m2);
  if (m == -wt_inf()) { return vec2<f32>(m, 0.0f); }
  return vec2<f32>(m, s1 * wt_exp(m1 - m) + s2 * wt_exp(m2 - m));
}

// (m, s) of two parts, by mode: 0: max of m; 1: sum of s; 2: join (m, s).
fn join_by(a: vec2<f32>, b: vec2<f32>, mode: u32) -> vec2<f32> {
  if (mode == 0u) { return vec2<f32>(wt_max(a.x, b.x), a.y); }
  if (mode == 1u) { return vec2<f32>(a.x, a.y + b.y); }
  return join(a.x, a.y, b.x, b.y);
}

// Joins each row's tpr threads (aligned segments of the workgroup); every thread gets its row's
// result (mode as join_by). Lanes fewer than SG_MIN apart join by subgroup shuffles (subgroup_*.wgsl),
// the rest through partial_m/partial_s.
fn row_join(m: f32, s: f32, lid: u32, tpr: u32, mode: u32) -> vec2<f32> {
  var v = vec2<f32>(m, s);
  var shuffled = 1u;  // lanes this far apart are joined
  for (; shuffled < tpr && shuffled < SG_MIN; shuffled = shuffled << 1u) {
    v = join_by(v, shuffle_xor_f32x2(v, shuffled), mode);
  }
  if (shuffled >= tpr) { return v; }
  partial_m[lid] = v.x;
  partial_s[lid] = v.y;
  workgroupBarrier();
  for (var step = tpr / 2u; step >= shuffled; step = step >> 1u) {
    if ((lid & (tpr - 1u)) < step) {
      let j = join_by(vec2<f32>(partial_m[lid], partial_s[lid]), vec2<f32>(partial_m[lid + step], partial_s[lid + step]),
                      mode);
      partial_m[lid] = j.x;
      partial_s[lid] = j.y;
    }
    workgroupBarrier();
  }
  let first = lid & ~(tpr - 1u);
  let result = vec2<f32>(partial_m[first], partial_s[first]);
  workgroupBarrier();  // the next join overwrites partial_*
  return result;
}

// A decode step's attention for one token (webtorch.hf): per workgroup one query head of one batch row,
// against its key/value head of the static KV cache (grouped-query attention: query head h reads kv
// head h / (heads / kv_heads)), the rows 0 ..= position attended. What the composed ops compute, in one
// kernel instead of five (rotary of q, q k^T with its scale, the mask's where, softmax, weights v),
// rounding to $S where they store: q rotated as rotary.wgsl rotates it; score_t = (q . k_t rounded) *
// scale rounded; softmax in f32 (max, then the sum of exp(score - max)), each weight rounded; out =
// sum_t weight_t v_t accumulated in f32, rounded once. The 256 invocations take rows t = lane, lane + 256,
// .. for the scores (a running max and sum each, joined; the first KEPT of each invocation kept in
// registers for the weights, later ones computed again), then for the weights 256 rows at a time into
// workgroup memory, which the invocations share as (256 / D) groups of D: group g adds rows g, g + 256 / D,
// .. of the chunk to its element d. D divides 256. A key row's dot product (from webtorch/hf/_gpu.py)
// reads cache_k element by element, or as vec4s where its rows start at multiples of 4 elements.
// WRITES false: the step has written its own key and value at row `position` already (rotary.wgsl's
// write_rows). WRITES true: this kernel writes them. Every workgroup rotates the token's key itself (from
// new_k, rounded to $S as the cache stores it) and takes its value from new_v, for row `position`, which
// it never reads from the cache; the first query head of each key/value head stores both into the cache
// rows, where later steps read them (the snippets of webtorch/hf/_gpu.py: new_k and new_v bound, ks and
// vs filled and stored).
// Split over the rows (flash-decoding: a long cache's rows walked by one workgroup per head leave most of
// a large GPU idle; webtorch/hf/_gpu.py's snippets): workgroup z takes rows z * CHUNK .. z * CHUNK +
// CHUNK - 1 only (none past the position: it returns at once) and stores, in f32, its rows' max score
// m, sum of exp(score - m) l and sum of exp(score - m) v_t (the weights neither divided nor rounded)
// into `out` as partials; decode_attention_combine.wgsl joins a head's chunks and rounds once. Chunk 0
// (never empty) stores the token's row where WRITES.
// params: D, heads, kv_heads, capacity, q offset, cos offset, sin offset, scale (f32 bits), cache_k offset,
// cache_v offset, and where WRITES the token's k offset and v offset.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$O>;
@group(0) @binding(2) var<storage, read> q: array<$S>;
@group(0) @binding(3) var<storage, $cache> cache_k: array<$K>;
@group(0) @binding(4) var<storage, $cache> cache_v: array<$S>;
@group(0) @binding(5) var<storage, read> cos_table: array<$S>;
@group(0) @binding(6) var<storage, read> sin_table: array<$S>;
@group(0) @binding(7) var<storage, read> position: array<f32>;
$new_inputs

var<workgroup> qs: array<f32, 256>;  // the rotated query row (D elements)
var<workgroup> ks: array<f32, 256>;  // WRITES: the token's rotated key row, as the cache stores it
var<workgroup> vs: array<f32, 256>;  // WRITES: the token's value row
var<workgroup> shared_m: array<f32, 256>;
var<workgroup> shared_l: array<f32, 256>;
const KEPT = 8u;  // scores kept per invocation: rows up to 2048
const D = ${D}u;  // the head size (a constant: the key row's loads unrolled, all in flight at once)
const WRITES = $writes;
const CHUNK = ${CHUNK}u;  // the rows of one workgroup (unsplit: all of them)

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let heads = params[1];
  let kv_heads = params[2];
  let capacity = params[3];
  let scale = bitcast<f32>(params[7]);
  let h = wid.x;
  let b = wid.y;
  let p = u32(position[0]);
  let visible = p + 1u;
  let lo = wid.z * CHUNK;  // this workgroup's rows lo .. hi - 1
  if (lo >= visible) { return; }
  let hi = lo + min(CHUNK, visible - lo);
  let group = heads / kv_heads;
  let kv_head = b * kv_heads + h / group;
  let kv = kv_head * capacity * D;  // the key/value head's row 0
  let k0 = params[8] + kv;
  let v0 = params[9] + kv;
  if (li < D) {
    let partner = (li + D / 2u) % D;  // rotate_half's source element
    let qrow = params[4] + (b * heads + h) * D;
    qs[li] = rotary(f32(q[qrow + li]), f32(q[qrow + partner]), li);
$new_rows
  }
  workgroupBarrier();
  if (WRITES && h % group == 0u && wid.z == 0u) {
$store_rows
  }
  // scores: a running (max, sum of exp(score - max)) per invocation
  var m = -wt_inf();
  var l = 0.0f;
  var kept: array<f32, KEPT>;
  for (var t = lo + li; t < hi; t = t + 256u) {
    var s: f32;
    if (WRITES && t == p) { s = new_score(scale); } else { s = score(k0 + t * D, scale); }
    if ((t - lo) / 256u < KEPT) { kept[(t - lo) / 256u] = s; }
    let m2 = max(m, s);
    l = l * wt_exp(m - m2) + wt_exp(s - m2);
    m = m2;
  }
  shared_m[li] = m;
  shared_l[li] = l;
  workgroupBarrier();
  for (var stride = 128u; stride > 0u; stride = stride >> 1u) {
    if (li < stride) {
      let m1 = shared_m[li];
      let m2 = shared_m[li + stride];
      let mm = max(m1, m2);
      if (mm > -wt_inf()) {
        shared_l[li] = shared_l[li] * wt_exp(m1 - mm) + shared_l[li + stride] * wt_exp(m2 - mm);
      }
      shared_m[li] = mm;
    }
    workgroupBarrier();
  }
  let mx = shared_m[0];
  let total = shared_l[0];
  workgroupBarrier();
  // weights, 256 rows at a time (in shared_m), and their sum of v rows per element
  let groups = 256u / D;
  let g = li / D;
  let d = li - g * D;
  var acc = 0.0f;
  for (var base = lo; base < hi; base = base + 256u) {
    let t = base + li;
    var w = 0.0f;
    if (t < hi) {
      var s: f32;
      if ((base - lo) / 256u < KEPT) {
        s = kept[(base - lo) / 256u];
      } else if (WRITES && t == p) {
        s = new_score(scale);
      } else {
        s = score(k0 + t * D, scale);
      }
      w = $weight;
    }
    shared_m[li] = w;
    workgroupBarrier();
    let rows = min(256u, hi - base);
    for (var r = g; r < rows; r = r + groups) {
      var value: f32;
      if (WRITES && base + r == p) { value = vs[d]; } else { value = f32(cache_v[v0 + (base + r) * D + d]); }
      acc = fma(shared_m[r], value, acc);
    }
    workgroupBarrier();
  }
  shared_l[li] = acc;
  workgroupBarrier();
  if (li < D) {
    var sum = 0.0f;
    for (var k = 0u; k < groups; k = k + 1u) { sum = sum + shared_l[k * D + li]; }
$store
  }
}

// x[d] * cos[d] + rotate_half(x)[d] * sin[d] (partner: x[d + D/2] for d < D/2, x[d - D/2] after), each
// product and the sum rounded to $S as rotary.wgsl rounds them
fn rotary(x: f32, partner: f32, d: u32) -> f32 {
  var rotated = partner;
  if (d < D / 2u) { rotated = -partner; }
  let a = f32(wt_store(x * f32(cos_table[params[5] + d])));
  let c = f32(wt_store(rotated * f32(sin_table[params[6] + d])));
  return f32(wt_store(a + c));
}

// (q . k_t) rounded to $S, times scale rounded: the scores the composed matmul and its scaling store
fn score(row: u32, scale: f32) -> f32 {
  var sum = 0.0f;
$dot
  return f32(wt_store(f32(wt_store(sum)) * scale));
}

// score() of the token's own key row (ks), in the same arithmetic
fn new_score(scale: f32) -> f32 {
  var sum = 0.0f;
$new_dot
  return f32(wt_store(f32(wt_store(sum)) * scale));
}

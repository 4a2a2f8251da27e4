// Sorts contiguous rows of up to 2048 (padded) elements, one workgroup per row: a bitonic network
// over the row padded to a power of two (padding sorts last) in workgroup memory, then the first
// row_len entries are written out. Ties break by original index, so the result is the stable sort's.
// Longer rows: sort_stages.wgsl. Elements are stored as $$S, keys as $$T (f16 sorts as f32).
// params (u32 words): n_rows, row_len, padded_len.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read_write> out_index: array<i32>;
@group(0) @binding(3) var<storage, read> x: array<$S>;
var<workgroup> keys: array<$T, 2048>;
var<workgroup> idx: array<u32, 2048>;

$before_fn

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= params[0]) { return; }  // uniform per workgroup
  let len = params[1];
  let p = params[2];
  for (var i = lid; i < p; i = i + 256u) {
    if (i < len) { keys[i] = $T(x[row * len + i]); }
    idx[i] = i;
  }
  workgroupBarrier();
  for (var k = 2u; k <= p; k = k << 1u) {
    for (var j = k >> 1u; j > 0u; j = j >> 1u) {
      for (var i = lid; i < p; i = i + 256u) {
        let l = i ^ j;
        if (l > i) {
          let va = keys[i];
          let ia = idx[i];
          let vb = keys[l];
          let ib = idx[l];
          // ascending blocks put the earlier element at i, descending blocks at l
          if (before(vb, ib, va, ia, len) == ((i & k) == 0u)) {
            keys[i] = vb; idx[i] = ib;
            keys[l] = va; idx[l] = ia;
          }
        }
      }
      workgroupBarrier();
    }
  }
  for (var i = lid; i < len; i = i + 256u) {
    out[row * len + i] = $S(keys[i]);
    out_index[row * len + i] = i32(idx[i]);
  }
}

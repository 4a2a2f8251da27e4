// Sorts contiguous rows, one workgroup per row: a bitonic network over the row padded to a
// power of two (padding sorts last) in scratch buffers, then the first row_len entries are
// written out. Ties break by original index, so the result is the stable sort's.
// Elements are stored as $$S, keys as $$T (f16 sorts as f32).
// params (u32 words): n_rows, row_len, padded_len.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read_write> out_index: array<i32>;
@group(0) @binding(3) var<storage, read> x: array<$S>;
@group(0) @binding(4) var<storage, read_write> keys: array<$T>;
@group(0) @binding(5) var<storage, read_write> idx: array<u32>;

// Does (va, ia) come before (vb, ib)? Padding (index >= row_len) comes last.
fn before(va: $T, ia: u32, vb: $T, ib: u32, len: u32) -> bool {
  if (ia >= len) { return false; }
  if (ib >= len) { return true; }
  $before
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= params[0]) { return; }  // uniform per workgroup
  let len = params[1];
  let p = params[2];
  let base = row * p;
  for (var i = lid; i < p; i = i + 256u) {
    if (i < len) { keys[base + i] = $T(x[row * len + i]); }
    idx[base + i] = i;
  }
  storageBarrier();
  workgroupBarrier();
  for (var k = 2u; k <= p; k = k << 1u) {
    for (var j = k >> 1u; j > 0u; j = j >> 1u) {
      for (var i = lid; i < p; i = i + 256u) {
        let l = i ^ j;
        if (l > i) {
          let va = keys[base + i];
          let ia = idx[base + i];
          let vb = keys[base + l];
          let ib = idx[base + l];
          // ascending blocks put the earlier element at i, descending blocks at l
          if (before(vb, ib, va, ia, len) == ((i & k) == 0u)) {
            keys[base + i] = vb; idx[base + i] = ib;
            keys[base + l] = va; idx[base + l] = ia;
          }
        }
      }
      storageBarrier();
      workgroupBarrier();
    }
  }
  for (var i = lid; i < len; i = i + 256u) {
    out[row * len + i] = $S(keys[base + i]);
    out_index[row * len + i] = i32(idx[base + i]);
  }
}

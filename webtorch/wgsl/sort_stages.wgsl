// Sorts contiguous rows longer than sort.wgsl's 2048 (padded) elements: the same bitonic network, one
// dispatch per step (the dispatches order the steps: a single workgroup looping over a long row in
// storage memory left entries unsorted on lavapipe from 2^17, and would use one of the GPU's cores).
// phase 0 copies the rows into the scratch keys / idx (padded to a power of two, padding sorting
// last), phase 1 is one compare-exchange step (block size k, distance j) over every pair of every row,
// phase 2 writes the first row_len entries out. Ties break by original index (the stable sort's).
// params (u32 words): n_rows, row_len, padded_len, k, j, phase.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read_write> out_index: array<i32>;
@group(0) @binding(3) var<storage, read> x: array<$S>;
@group(0) @binding(4) var<storage, read_write> keys: array<$T>;
@group(0) @binding(5) var<storage, read_write> idx: array<u32>;

$before_fn

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = gid.x + gid.y * nwg.x * 256u;
  let rows = params[0];
  let len = params[1];
  let p = params[2];
  let phase = params[5];
  if (phase == 0u) {
    if (t >= rows * p) { return; }
    let row = t / p;
    let i = t % p;
    if (i < len) { keys[t] = $T(x[row * len + i]); }
    idx[t] = i;
  } else if (phase == 1u) {
    let half = p / 2u;
    if (t >= rows * half) { return; }
    let k = params[3];
    let j = params[4];
    let q = t % half;
    let i = ((q & ~(j - 1u)) << 1u) | (q & (j - 1u));  // q with a zero bit inserted at j: i < i ^ j
    let a = (t / half) * p + i;
    let b = a + j;
    let va = keys[a];
    let ia = idx[a];
    let vb = keys[b];
    let ib = idx[b];
    // ascending blocks put the earlier element at i, descending blocks at i + j
    if (before(vb, ib, va, ia, len) == ((i & k) == 0u)) {
      keys[a] = vb; idx[a] = ib;
      keys[b] = va; idx[b] = ia;
    }
  } else {
    if (t >= rows * len) { return; }
    let row = t / len;
    let i = t % len;
    out[t] = $S(keys[row * p + i]);
    out_index[t] = i32(idx[row * p + i]);
  }
}

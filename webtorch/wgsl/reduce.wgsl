// One workgroup per (output element, chunk of its row): reduces the strided "row" of input elements
// that map to it, or the chunk [c * chunk, (c + 1) * chunk) of it when a long row is split over many
// workgroups (then out holds n_out x n_chunks partials, reduced again by a second launch).
// params (u32 words): n_out * n_chunks, row_len, kept_rank, red_rank, offset, kept shape[kept_rank],
// kept strides[kept_rank], reduced shape[red_rank], reduced strides[red_rank], chunk.
// The row index of the winning element is kept for arg-reductions (row-major over reduced dims).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$out_storage>;
@group(0) @binding(2) var<storage, read> x: array<$in_storage>;
$index_binding

var<workgroup> shared_v: array<$T, 64>;
var<workgroup> shared_i: array<u32, 64>;

// Should (bv, bi) replace (av, ai)?
fn takes(av: $T, ai: u32, bv: $T, bi: u32) -> bool { return $takes; }
fn combine(a: $T, b: $T) -> $T { return $combine; }

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let f = wid.y * nwg.x + wid.x;
  if (f >= params[0]) { return; }  // uniform per workgroup, so barriers below stay uniform
  let row_len = params[1];
  let chunk = params[5u + 2u * (params[2] + params[3])];
  let n_chunks = (row_len + chunk - 1u) / chunk;
  let o = f / max(n_chunks, 1u);
  let r0 = (f - o * n_chunks) * chunk;
  let r1 = min(row_len, r0 + chunk);
  var av: $T = $identity;
  var ai: u32 = 0xffffffffu;
  for (var r = r0 + lid; r < r1; r = r + 64u) {
    let v = $load;
    if ($arg) {
      let ri = $candidate;
      if (ai == 0xffffffffu || takes(av, ai, v, ri)) { av = v; ai = ri; }
    } else {
      av = combine(av, v);
    }
  }
  shared_v[lid] = av;
  shared_i[lid] = ai;
  workgroupBarrier();
  for (var s = 32u; s > 0u; s = s >> 1u) {
    if (lid < s) {
      let bv = shared_v[lid + s];
      let bi = shared_i[lid + s];
      if ($arg) {
        if (bi != 0xffffffffu && (shared_i[lid] == 0xffffffffu || takes(shared_v[lid], shared_i[lid], bv, bi))) {
          shared_v[lid] = bv;
          shared_i[lid] = bi;
        }
      } else {
        shared_v[lid] = combine(shared_v[lid], bv);
      }
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    out[f] = $store;
$index_store
  }
}

// One workgroup per (output element, chunk of its row): reduces the "row" of input elements that
// map to it, or the chunk [c * chunk, (c + 1) * chunk) of it when a long row is split over many
// workgroups (then out holds n_out x n_chunks partials, reduced again by a second launch).
// params (u32 words): n_out * n_chunks, row_len, kept_rank, red_rank, offset, kept shape[kept_rank],
// kept strides[kept_rank], reduced shape[red_rank], reduced strides[red_rank], chunk.
// Each thread folds its share of the chunk (accumulate(), from reduce_rows.wgsl or reduce_vec4.wgsl)
// into independent accumulators, so several loads are in flight; a workgroup tree joins the threads.
// The row index of the winning element is kept for arg-reductions (row-major over reduced dims).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$out_storage>;
@group(0) @binding(2) var<storage, read> x: array<$in_type>;
$index_binding

const WG = ${WG}u;
const NONE = 0xffffffffu;  // the index of an empty accumulator

// A partial result: the value, and for arg-reductions the row index it came from.
struct Acc { v: $T, i: u32 }

var<workgroup> shared_acc: array<Acc, ${WG}>;

// Should (bv, bi) replace (av, ai)?
fn takes(av: $T, ai: u32, bv: $T, bi: u32) -> bool { return $takes; }
fn combine(a: $T, b: $T) -> $T { return $combine; }
fn cv(s: $in_storage) -> $T { return $convert; }
fn empty_acc() -> Acc { return Acc($identity, NONE); }

// a joined with b; for arg-reductions the winner (takes() orders by value, then index, so the
// order of joins does not matter).
fn merge(a: Acc, b: Acc) -> Acc {
  if ($arg) {
    if (b.i != NONE && (a.i == NONE || takes(a.v, a.i, b.v, b.i))) { return b; }
    return a;
  }
  return Acc(combine(a.v, b.v), 0u);
}

@compute @workgroup_size(${WG})
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
  shared_acc[lid] = accumulate(o, r0, r1, lid);
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s >> 1u) {
    if (lid < s) { shared_acc[lid] = merge(shared_acc[lid], shared_acc[lid + s]); }
    workgroupBarrier();
  }
  if (lid == 0u) {
    out[f] = $store;
$index_store
  }
}

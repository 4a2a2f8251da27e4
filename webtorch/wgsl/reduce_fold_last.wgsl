// finish() for reduce_by_rows.wgsl when a long row is split over n_chunks workgroups (one chunk each):
// the row's partials are folded in the same launch, by whichever of its workgroups finishes last, so
// a full reduction costs one launch instead of two (a launch's fixed ~8 us on an H200 was a sixth of a
// 16M-element sum). scratch: the rows' counters of finished chunks (FOLD_ROWS words: zero between
// launches), then the partials (the float32 accumulators' bits, row o's chunks at FOLD_ROWS + o * n_chunks; EMPTY
// between launches), as gpu.py's fold scratch buffer starts them and each launch leaves them.
// WGSL orders no memory between workgroups (no device-scope fence): the last workgroup does not rely
// on the counter to see the others' partials, it reads each one atomically until it is no longer
// EMPTY (each was stored before its workgroup counted itself, so none is waited on that may not run).
@group(0) @binding(3) var<storage, read_write> scratch: array<atomic<u32>>;

const FOLD_ROWS = ${FOLD_ROWS}u;
const EMPTY = ${FOLD_EMPTY}u;  // a signalling-NaN pattern; a partial with these bits is stored as NaN
var<workgroup> row_is_done: u32;

fn finish(f: u32, first: bool, a: Acc, lid: u32, n_chunks: u32) {
  let o = f / n_chunks;
  if (lid == 0u) {
    row_is_done = 0u;
    if (first) {
      let bits = bitcast<u32>(a.v);
      atomicStore(&scratch[FOLD_ROWS + f], select(bits, 0x7fc00000u, bits == EMPTY));
      if (atomicAdd(&scratch[o], 1u) == n_chunks - 1u) { row_is_done = 1u; }
    }
  }
  if (workgroupUniformLoad(&row_is_done) == 0u) { return; }
  var acc = empty_acc();
  for (var c = lid; c < n_chunks; c = c + WG) {
    let slot = FOLD_ROWS + o * n_chunks + c;
    var bits = atomicLoad(&scratch[slot]);
    while (bits == EMPTY) { bits = atomicLoad(&scratch[slot]); }
    atomicStore(&scratch[slot], EMPTY);
    acc = merge(acc, Acc(bitcast<f32>(bits), 0u));
  }
  acc = join_threads(acc, lid, 1u, WG);
  if (lid == 0u) {
    store(o, acc);
    atomicStore(&scratch[o], 0u);
  }
}

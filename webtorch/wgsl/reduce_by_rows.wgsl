// Rows over threads: each row, or chunk [c * chunk, (c + 1) * chunk) of it when a long row is split
// over many workgroups (then out holds n_out x n_chunks partials, reduced again by a second launch),
// gets tpr threads (a power of two); a workgroup serves WG / tpr of them, so short rows do not leave
// threads idle. Each thread folds its share (accumulate(), from reduce_rows.wgsl or reduce_vec4.wgsl)
// into independent accumulators, so several loads are in flight; then the row's threads join.
// params: rows.wgsl's layout (with n_out * n_chunks first), then chunk, tpr.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let rb = 5u + 2u * (params[2] + params[3]);
  let chunk = params[rb];
  let tpr = params[rb + 1u];
  let f = (wid.y * nwg.x + wid.x) * (WG / tpr) + lid / tpr;
  let lane = lid & (tpr - 1u);
  let live = f < params[0];  // threads past the last row still take part in the barriers
  let row_len = params[1];
  let n_chunks = (row_len + chunk - 1u) / chunk;
  let o = f / max(n_chunks, 1u);
  let r0 = (f - o * n_chunks) * chunk;
  var a = empty_acc();
  if (live) { a = accumulate(o, r0, min(row_len, r0 + chunk), lane, tpr); }
  a = join_threads(a, lid, 1u, tpr);
  finish(f, live && lane == 0u, a, lid, n_chunks);
}

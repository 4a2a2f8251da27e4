// out[r, j] = sum of values[k] * dense[cols[k], j] over row r's entries k: a sparse matrix in CSR form (row r's
// entries are k in [starts[r], starts[r + 1]), sorted by row as coalesce leaves them) times a dense one. One
// thread per 4 adjacent outputs of a row: the threads of a workgroup share the row (its entries' loads are the
// same address), each entry's column and value is loaded once for 4 outputs, and the dense rows are read in
// contiguous runs. The entries are summed in their order: no atomics, the same result on every run.
// params (u32 words): threads (rows x ceil(N / 4)), N, then the element offsets of starts, cols, values, dense
// (dense is contiguous, N elements a row).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> starts: array<i32>;
@group(0) @binding(3) var<storage, read> cols: array<i32>;
@group(0) @binding(4) var<storage, read> values: array<f32>;
@group(0) @binding(5) var<storage, read> dense: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 64u + lid;
  if (i >= params[0]) { return; }
  let n = params[1];
  let quads = (n + 3u) / 4u;
  let r = i / quads;
  let j = (i % quads) * 4u;
  let last = min(j + 3u, n - 1u) - j;  // 3 but in a last quad of fewer columns: the loads stay in the row
  let c_off = params[3];
  let v_off = params[4];
  let d_off = params[5] + j;
  let end = u32(starts[params[2] + r + 1u]);
  var acc = vec4<f32>(0.0);
  for (var k = u32(starts[params[2] + r]); k < end; k++) {
    let at = d_off + u32(cols[c_off + k]) * n;
    acc += values[v_off + k] * vec4<f32>(dense[at], dense[at + min(1u, last)], dense[at + min(2u, last)],
                                         dense[at + last]);
  }
  let o = r * n + j;
  out[o] = acc.x;
  if (last >= 1u) { out[o + 1u] = acc.y; }
  if (last >= 2u) { out[o + 2u] = acc.z; }
  if (last >= 3u) { out[o + 3u] = acc.w; }
}

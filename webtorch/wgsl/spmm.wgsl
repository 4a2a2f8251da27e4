// out[r, j] = sum of values[k] * dense[cols[k], j] over row r's entries k: a sparse COO matrix (its entries
// sorted by row, as coalesce leaves them) times a dense one. One thread per output element gathers the
// dense rows its sparse row names and sums them in entry order: no atomics, so the result is the same on
// every run. Row r's entries are k in [starts[r], starts[r + 1]) (CSR row pointers).
// params (u32 words): n (rows x N outputs), N, then the element offsets of starts, cols, values, dense
// (dense is contiguous, N elements a row).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> starts: array<i32>;
@group(0) @binding(3) var<storage, read> cols: array<i32>;
@group(0) @binding(4) var<storage, read> values: array<f32>;
@group(0) @binding(5) var<storage, read> dense: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= params[0]) { return; }
  let n = params[1];
  let r = i / n;
  let j = i % n;
  let end = u32(starts[params[2] + r + 1u]);
  var acc = 0.0;
  for (var k = u32(starts[params[2] + r]); k < end; k++) {
    acc += values[params[4] + k] * dense[params[5] + u32(cols[params[3] + k]) * n + j];
  }
  out[i] = acc;
}

// out[k] = sum over j of a[rows[k], j] * b[cols[k], j]: the product A Bᵀ sampled at a sparse matrix's
// entries (the gradient of sparse @ dense with respect to the sparse operand's values, A the output's
// gradient and B the dense operand), without forming A Bᵀ or gathering whole rows into new tensors.
// One thread per entry, summing in j order.
// params (u32 words): nnz, N, then the element offsets of rows, cols, a, b (a and b contiguous, N a row).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> rows: array<i32>;
@group(0) @binding(3) var<storage, read> cols: array<i32>;
@group(0) @binding(4) var<storage, read> a: array<f32>;
@group(0) @binding(5) var<storage, read> b: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let k = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (k >= params[0]) { return; }
  let n = params[1];
  let row_a = params[4] + u32(rows[params[2] + k]) * n;
  let row_b = params[5] + u32(cols[params[3] + k]) * n;
  var acc = 0.0;
  for (var j = 0u; j < n; j++) {
    acc += a[row_a + j] * b[row_b + j];
  }
  out[k] = acc;
}

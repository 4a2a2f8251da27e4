// store_result of matmul_subgroup_matrix.wgsl for float32 C: the fragment goes straight to C
// (row, col: its first element's).
@group(0) @binding(1) var<storage, read_write> c: array<f32>;

fn store_result(r: Acc, row: u32, col: u32, sg: u32, lane: u32) {
  subgroupMatrixStore(&c, row * params[1] + col, r, false, params[1]);
}

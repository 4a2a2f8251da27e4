// store_result of matmul_subgroup_matrix.wgsl for float32 C: the fragment goes straight to C
// (corner: its first element, n: C's row stride).
fn store_result(r: Acc, corner: u32, n: u32, sg: u32, lane: u32) {
  subgroupMatrixStore<row_major>(&c, corner, r, n);
}

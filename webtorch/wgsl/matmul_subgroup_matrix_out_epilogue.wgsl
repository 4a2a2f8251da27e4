// store_result of matmul_subgroup_matrix.wgsl under a fused elementwise epilogue (matmul_epilogue.wgsl,
// which declares the buffers it stores to): as for float16 C (matmul_subgroup_matrix_out_f16.wgsl),
// the fragment goes through workgroup memory, then each element (row, col) to store_c, neighbouring
// invocations taking neighbouring columns.
var<workgroup> staged: array<array<f32, SM * SN>, WM * WN>;

fn store_result(r: Acc, row: u32, col: u32, sg: u32, lane: u32) {
  subgroupMatrixStore(&staged[sg], 0u, r, false, SN);
  workgroupBarrier();
  for (var e = lane; e < SM * SN; e = e + SG) {
    store_c(row + e / SN, col + e % SN, staged[sg][e]);
  }
  workgroupBarrier();
}

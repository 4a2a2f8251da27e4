// store_result of matmul_subgroup_matrix.wgsl for float16 C (corner: the fragment's first element,
// even; n: C's row stride, even): a subgroup matrix stores only into an array of its own component
// type (f32), so the fragment goes out through workgroup memory, each subgroup its own part of it,
// and on to C two halves a word.
var<workgroup> staged: array<array<f32, SM * SN>, WM * WN>;

fn store_result(r: Acc, corner: u32, n: u32, sg: u32, lane: u32) {
  subgroupMatrixStore<row_major>(&staged[sg], 0u, r, SN);
  workgroupBarrier();
  for (var e = lane; e < SM * SN / 2u; e = e + SG) {
    let two = vec2<f32>(staged[sg][2u * e], staged[sg][2u * e + 1u]);
    c[(corner + (2u * e / SN) * n + 2u * e % SN) / 2u] = bitcast<u32>(vec2<f16>(two));
  }
  workgroupBarrier();
}

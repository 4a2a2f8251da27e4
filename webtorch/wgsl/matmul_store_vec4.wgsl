// C's binding and store of matmul_vec4.wgsl and matmul_registers.wgsl run eagerly: the four elements
// (row, col .. col + 3) of C (col a multiple of 4), row counted over the batch (z * M + r), each rounded
// to C's dtype by wt_store (S: its storage type). Under webtorch.compile a fused elementwise epilogue may
// take its place (matmul_epilogue.wgsl).
@group(0) @binding(1) var<storage, read_write> c: array<vec4<$S>>;

fn store_c4(row: u32, col: u32, v: vec4<f32>) {
  c[(row * params[1] + col) / 4u] = vec4<$S>(wt_store(v.x), wt_store(v.y), wt_store(v.z), wt_store(v.w));
}

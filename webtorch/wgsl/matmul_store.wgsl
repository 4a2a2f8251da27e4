// C's binding and store of matmul.wgsl and matmul_small.wgsl run eagerly: element (row, col) of C, its
// row counted over the batch (z * M + r), rounded to C's dtype by wt_store. Under webtorch.compile a
// fused elementwise epilogue may take its place (matmul_epilogue.wgsl).
@group(0) @binding(1) var<storage, read_write> c: array<$S>;

fn store_c(row: u32, col: u32, v: $T) {
  c[row * params[1] + col] = wt_store(v);
}

// The store of a matmul kernel's C under webtorch.compile (backend/fusion.py) when an elementwise chain
// reads C: the chain runs here, per element of C, instead of in kernels of its own. Member 0 is the
// matmul's value v rounded to C's dtype as its store would (kept in memory only where something else
// reads C); the others compute as elementwise.wgsl's members, and each value goes to memory only where
// something else needs it. params: the matmul's words (matmul.wgsl), then from word 10 + 3 * its batch
// rank the chain's: n, rank, shape[rank], per view offset and strides[rank], the scalars' bits.
$bindings

fn store_c(row: u32, col: u32, v: $T) {
  let e0 = ${E0}u;  // 10 + 3 * the matmul's batch rank
$index
$body
}

// the vec4 kernels' store: four elements of a row (col a multiple of 4)
fn store_c4(row: u32, col: u32, v: vec4<$T>) {
  store_c(row, col, v.x);
  store_c(row, col + 1u, v.y);
  store_c(row, col + 2u, v.z);
  store_c(row, col + 3u, v.w);
}

// Addressing for kernels that work row by row over a strided input (reduce.wgsl, softmax.wgsl).
// params (u32 words): n_out, row_len, kept_rank, red_rank, offset, kept shape[kept_rank],
// kept strides[kept_rank], reduced shape[red_rank], reduced strides[red_rank].
// Row o is the o-th index over the kept dims (row-major), r the r-th over the reduced dims.
fn element_offset(o: u32, r: u32) -> u32 {
  let kr = params[2];
  let rr = params[3];
  var off = params[4];
  var rem = o;
  for (var d = kr; d > 0u; d = d - 1u) {
    let size = params[4u + d];
    off = off + (rem % size) * params[4u + kr + d];
    rem = rem / size;
  }
  let rb = 5u + 2u * kr;
  rem = r;
  for (var d = rr; d > 0u; d = d - 1u) {
    let size = params[rb + d - 1u];
    off = off + (rem % size) * params[rb + rr + d - 1u];
    rem = rem / size;
  }
  return off;
}

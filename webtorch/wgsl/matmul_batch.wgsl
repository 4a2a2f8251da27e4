// The element offsets of A and B for batch z of a batched matmul (matmul.wgsl, matmul_vec4.wgsl):
// z unravelled over the batch shape with each operand's batch strides (params layout in matmul.wgsl).
fn batch_bases(z: u32) -> vec2<u32> {
  let rank = params[3];
  var a_base = params[4];
  var b_base = params[7];
  var rem = z;
  for (var d = rank; d > 0u; d = d - 1u) {
    let size = params[9u + d];
    let idx = rem % size;
    rem = rem / size;
    a_base = a_base + idx * params[9u + rank + d];
    b_base = b_base + idx * params[9u + 2u * rank + d];
  }
  return vec2<u32>(a_base, b_base);
}

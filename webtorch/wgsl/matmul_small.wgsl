// Batched C = A @ B for small products (params layout in matmul.wgsl): one output element per
// invocation, its row of A and column of B read straight from memory. No workgroup memory and no
// barriers (C stored by store_c, as in matmul.wgsl): for small matrices the tiled kernels would mostly compute padding, and on CPU adapters
// (SwiftShader) their barriers cost more than the arithmetic.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(2) var<storage, read> a: array<$S>;
@group(0) @binding(3) var<storage, read> b: array<$S>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let M = params[0];
  let N = params[1];
  let K = params[2];
  if (gid.x >= M * N) { return; }
  let row = gid.x / N;
  let col = gid.x % N;
  let bases = batch_bases(wid.z);
  var ai = bases.x + row * params[5];
  var bi = bases.y + col * params[9];
  var acc: $T = $T(0);
  for (var k = 0u; k < K; k = k + 1u) {
    acc = $mad;
    ai = ai + params[6];
    bi = bi + params[8];
  }
  store_c(wid.z * M + row, col, acc);
}

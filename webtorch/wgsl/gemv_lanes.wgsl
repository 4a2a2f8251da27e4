// The lane layout of the GEMV kernels (matmul_gemv.wgsl, quantized_gemv.wgsl): a 256-invocation
// workgroup computes ROWS outputs, LANES neighbouring invocations per output each summing a strided
// part of K; lanes_sum then adds an output's LANES partial sums in workgroup memory. Call it from
// uniform control flow (it has barriers); the total is valid in lane 0 of each output.
const ROWS = 8u;
const LANES = 32u;
var<workgroup> partial: array<f32, 256>;

fn lanes_sum(li: u32, acc: f32) -> f32 {
  partial[li] = acc;
  workgroupBarrier();
  let lane = li % LANES;
  for (var s = LANES / 2u; s > 0u; s = s >> 1u) {
    if (lane < s) {
      partial[li] = partial[li] + partial[li + s];
    }
    workgroupBarrier();
  }
  return partial[li];
}

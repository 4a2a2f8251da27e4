// The lane layout of the GEMV kernels (matmul_gemv.wgsl, quantized_gemv.wgsl): a 256-invocation
// workgroup computes ROWS outputs, LANES neighbouring invocations per output each summing a strided
// part of K; lanes_sum then adds an output's LANES partial sums (two at once: a vec2), lanes fewer than
// SG_MIN apart by subgroup shuffles (subgroup_*.wgsl: none without subgroups), the rest in workgroup
// memory. Call it from uniform control flow (shuffles, barriers); the total is valid in lane 0 of each
// output.
const ROWS = 8u;
const LANES = 32u;
var<workgroup> partial: array<vec2<f32>, 256>;

fn lanes_sum(li: u32, acc: vec2<f32>) -> vec2<f32> {
  var v = acc;
  var joined = 1u;  // lanes this far apart are summed
  for (; joined < LANES && joined < SG_MIN; joined = joined << 1u) {
    v = v + shuffle_xor_f32x2(v, joined);
  }
  if (joined >= LANES) { return v; }
  partial[li] = v;
  workgroupBarrier();
  let lane = li % LANES;
  for (var s = LANES / 2u; s >= joined; s = s >> 1u) {
    if (lane < s) {
      partial[li] = partial[li] + partial[li + s];
    }
    workgroupBarrier();
  }
  return partial[li];
}

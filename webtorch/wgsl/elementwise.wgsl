// Elementwise ops by output index (one per invocation, or several: below): each member op computes its value from its
// operands (strided views over the output's shape, broadcast dims of stride 0; scalars; earlier
// members' values) and stores it into its views. One op eagerly; a fused chain under webtorch.compile.
// params (u32 words): n, rank, shape[rank], then per view: offset, strides[rank]; then the scalars' bits.
// A contiguous program (views offset + i) takes several indices per invocation (kernels.ELEMENTWISE_PER,
// spaced by the number of invocations, tid + e * total): $$index and $$body name them by suffix _e.
@group(0) @binding(0) var<storage, read> params: array<u32>;
$bindings

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let tid = (wid.y * nwg.x + wid.x) * 256u + lid;
  let n = params[0];
  if (tid >= n) { return; }
$index
$body
}

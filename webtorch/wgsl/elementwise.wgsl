// One output element per invocation: out = EXPR(operands).
// Each operand is a strided view over the output's shape (broadcast dims have stride 0).
// params (u32 words): n, rank, shape[rank], then per view (out first): offset, strides[rank],
// then the scalar operands' bits.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$out_storage>;
$bindings

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= params[0]) { return; }
$index
$loads
  out[$out_index] = $store;
}

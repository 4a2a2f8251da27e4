// One optimizer step for one parameter, every element in one invocation: the parameter and its
// state are updated in place (one dispatch per parameter instead of one per arithmetic op).
// params (u32 words): n, then the step's hyperparameters as f32 bits (hp(k)).
// The update (filled in per optimizer) is PyTorch's single-tensor update, op by op in its order.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> p: array<f32>;
@group(0) @binding(2) var<storage, read> g: array<f32>;
$state_bindings

fn hp(k: u32) -> f32 { return bitcast<f32>(params[1u + k]); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= params[0]) { return; }
$update
}

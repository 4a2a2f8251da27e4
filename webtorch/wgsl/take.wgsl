// out[i] = x[offsets[i]]: a gather through precomputed element offsets. Advanced indexing,
// gather, index_select, flip, ... compute the offsets with elementwise integer math and end here.
// params (u32 words): n, offsets' element offset.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$T>;
@group(0) @binding(2) var<storage, read> x: array<$T>;
@group(0) @binding(3) var<storage, read> offsets: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= params[0]) { return; }
  out[i] = x[u32(offsets[params[1] + i])];
}

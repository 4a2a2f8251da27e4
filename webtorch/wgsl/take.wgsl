// out[i] = x[offset of i]: a gather. The offset of output i is $address: either precomputed
// element offsets (offsets[params[1] + i]; advanced indexing, gather, flip, ... compute them with
// elementwise integer math), or along.wgsl's slice of x along one dim picked by an index vector
// (index_select, embedding: no offsets tensor).
// params (u32 words): n, offsets' (or the index vector's) element offset, then along.wgsl's from word 2.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$T>;
@group(0) @binding(2) var<storage, read> x: array<$T>;
@group(0) @binding(3) var<storage, read> offsets: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= params[0]) { return; }
  out[i] = x[$address];
}

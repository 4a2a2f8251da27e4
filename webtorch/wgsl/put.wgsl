// dst[offset of i] = src[i], or += with accumulate (atomically: several i may share an offset).
// The scatter half of indexing: index_put_, scatter, scatter_add, index_add, masked writes, and
// the gradient of a gather. The offset of i is $address, as in take.wgsl.
// params (u32 words): n, offsets' (or the index vector's) element offset, src's element offset, then
// along.wgsl's from word 3.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<$dst_type>;
@group(0) @binding(2) var<storage, read> src: array<$T>;
@group(0) @binding(3) var<storage, read> offsets: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= params[0]) { return; }
  let o = $address;
  let v = src[params[2] + i];
$store
}

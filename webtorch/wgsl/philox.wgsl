// Counter-based random numbers: Philox4x32-10 (Salmon et al., "Parallel random numbers: as
// easy as 1, 2, 3", SC'11). Element i uses counter (offset + i, offset_hi, 0, 0) under key
// (seed_lo, seed_hi), so a (seed, offset) pair gives the same numbers on every run and device.
// params (u32 words): n, seed_lo, seed_hi, offset_lo, offset_hi.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$T>;

// High 32 bits of a 32x32-bit product (WGSL has no 64-bit integers).
fn mulhi(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let mid1 = a0 * b1; let mid2 = a1 * b0;
  let cross = ((a0 * b0) >> 16u) + (mid1 & 0xffffu) + (mid2 & 0xffffu);
  return a1 * b1 + (mid1 >> 16u) + (mid2 >> 16u) + (cross >> 16u);
}

fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
  var c = counter;
  var k = key;
  for (var r = 0u; r < 10u; r = r + 1u) {
    let hi0 = mulhi(0xD2511F53u, c.x); let lo0 = 0xD2511F53u * c.x;
    let hi1 = mulhi(0xCD9E8D57u, c.z); let lo1 = 0xCD9E8D57u * c.z;
    c = vec4<u32>(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
  }
  return c;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= params[0]) { return; }
  let lo = params[3] + i;
  let carry = select(0u, 1u, lo < i);
  let w = philox(vec4<u32>(lo, params[4] + carry, 0u, 0u), vec2<u32>(params[1], params[2]));
$store
}

// Fast path of batched C = A @ B (see matmul.wgsl for the general kernel and the params layout):
// A and B row-major in their last dim (stride 1), K and N multiples of 4, offsets and the other
// strides multiples of 4, f32. Loads and stores are vec4; a workgroup computes a $BM x $BN tile,
// each invocation $TM x (4*$TN4) outputs from registers, K in steps of 16 through workgroup memory.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> b: array<vec4<f32>>;

const BM = ${BM}u;
const BN = ${BN}u;
const TM = ${TM}u;
const TN4 = ${TN4}u;
const BK = 16u;

var<workgroup> a_tile: array<array<vec4<f32>, ${BM4}>, 16>;  // [k][m / 4]: A transposed
var<workgroup> b_tile: array<array<vec4<f32>, ${BN4}>, 16>;  // [k][n / 4]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = params[0];
  let N = params[1];
  let K = params[2];
  let bases = batch_bases(wid.z);
  let a_base = bases.x;
  let b_base = bases.y;
  let a_base4 = a_base / 4u;
  let b_base4 = b_base / 4u;
  let a_sm4 = params[5] / 4u;
  let b_sk4 = params[8] / 4u;
  let K4 = K / 4u;
  let N4 = N / 4u;
  let row0 = wid.y * BM;
  let col04 = wid.x * (BN / 4u);
  let tid = lid.y * 16u + lid.x;
  var acc: array<vec4<f32>, ${ACC}>;
  for (var k0 = 0u; k0 < K; k0 = k0 + BK) {
    let k04 = k0 / 4u;
    for (var l = 0u; l < BM / 64u; l = l + 1u) {
      let e = tid + l * 256u;
      let r = e / 4u;
      let kq = e % 4u;
      var v = vec4<f32>(0.0);
      if (row0 + r < M && k04 + kq < K4) { v = a[a_base4 + (row0 + r) * a_sm4 + k04 + kq]; }
      let m4 = r / 4u;
      let mc = r % 4u;
      a_tile[kq * 4u][m4][mc] = v.x;
      a_tile[kq * 4u + 1u][m4][mc] = v.y;
      a_tile[kq * 4u + 2u][m4][mc] = v.z;
      a_tile[kq * 4u + 3u][m4][mc] = v.w;
    }
    for (var l = 0u; l < BN / 64u; l = l + 1u) {
      let e = tid + l * 256u;
      let kr = e / (BN / 4u);
      let cq = e % (BN / 4u);
      var v = vec4<f32>(0.0);
      if (k0 + kr < K && col04 + cq < N4) { v = b[b_base4 + (k0 + kr) * b_sk4 + col04 + cq]; }
      b_tile[kr][cq] = v;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < BK; kk = kk + 1u) {
      var av: array<vec4<f32>, ${TM4}>;
      var bv: array<vec4<f32>, ${TN4}>;
      for (var i = 0u; i < TM / 4u; i = i + 1u) { av[i] = a_tile[kk][lid.y * (TM / 4u) + i]; }
      for (var j = 0u; j < TN4; j = j + 1u) { bv[j] = b_tile[kk][lid.x * TN4 + j]; }
      for (var i = 0u; i < TM; i = i + 1u) {
        let ai = vec4<f32>(av[i / 4u][i % 4u]);
        for (var j = 0u; j < TN4; j = j + 1u) { acc[i * TN4 + j] = fma(ai, bv[j], acc[i * TN4 + j]); }
      }
    }
    workgroupBarrier();
  }
  let c_base4 = wid.z * M * N4;
  for (var i = 0u; i < TM; i = i + 1u) {
    let r = row0 + lid.y * TM + i;
    if (r < M) {
      for (var j = 0u; j < TN4; j = j + 1u) {
        let cq = col04 + lid.x * TN4 + j;
        if (cq < N4) { c[c_base4 + r * N4 + cq] = acc[i * TN4 + j]; }
      }
    }
  }
}

// Fast path of batched C = A @ B (see matmul.wgsl for the general kernel and the params layout):
// A and B f32, or half (float16 where the adapter has "shader-f16": 8-byte loads, half the bytes), widened
// to f32 as they go to workgroup memory (matmul_load4.wgsl) and multiplied and summed in f32 (as torch's half GEMMs
// accumulate), A row-major in its last dim (stride 1), B row-major (stride 1 along N) or,
// with B_T, transposed (stride 1 along K: a linear layer's x @ W.T), K and N multiples of 4, offsets
// and the other strides multiples of 4. Loads and stores are vec4. A workgroup of WX x WY invocations computes a
// (WY*TM) x (4*WX*TN4) tile of C; invocation (x, y) owns rows y + WY*i (i < TM) and vec4 columns
// x + WX*j (j < TN4), so that neighbouring invocations read neighbouring workgroup memory (or the
// same word: a broadcast) and write neighbouring words of C. K advances 4*BK4 at a time through
// workgroup memory, A kept row-major there so that its tile is stored as it is loaded (vec4 along K).
// Each step first fetches the next K tile into registers, then multiplies the tile stored by the
// step before, then stores the fetched one: the global loads are in flight during the arithmetic.
// (Tile shapes and this order were timed on an H200 with bench/matmul_tune.mjs, see gpu.matmul; two
// alternating workgroup buffers (one barrier per step), A transposed in workgroup memory, and loops
// unrolled into one variable per accumulator with indices Dawn's robustness pass can bound were each
// no faster there: bench/results/matmul_fp32.md.) A transposed B is read as vec4 along K and stored
// into b_tile ([k][n / 4]) component by component. C is stored a vec4 at a time by store_c4
// (matmul_store_vec4.wgsl, or a fused elementwise epilogue: matmul_epilogue.wgsl).
@group(0) @binding(0) var<storage, read> params: array<u32>;

const TM = ${TM}u;
const TN4 = ${TN4}u;
const BK4 = ${BK4}u;
const B_T = ${B_T};
const WX = ${WX}u;
const WY = ${WY}u;
const INV = WX * WY;
const BM = WY * TM;
const BN4 = WX * TN4;
const A_LOADS = BM * BK4 / INV;  // vec4 loads per invocation per K step (the choice keeps these whole)
const B_LOADS = 4u * BK4 * BN4 / INV;

var<workgroup> a_tile: array<array<vec4<f32>, BK4>, BM>;  // [m][k / 4]
var<workgroup> b_tile: array<array<vec4<f32>, BN4>, 4u * BK4>;  // [k][n / 4]

@compute @workgroup_size(WX, WY)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = params[0];
  let N4 = params[1] / 4u;
  let K4 = params[2] / 4u;
  let bases = batch_bases(wid.z);
  let a_base4 = bases.x / 4u;
  let b_base4 = bases.y / 4u;
  let a_sm4 = params[5] / 4u;
  let b_sk4 = params[8] / 4u;
  let b_sn4 = params[9] / 4u;
  let row0 = wid.y * BM;
  let col04 = wid.x * BN4;
  let tid = lid.y * WX + lid.x;
  var acc: array<vec4<f32>, TM * TN4>;
  var a_next: array<Load4, A_LOADS>;  // as loaded: widened to f32 only when stored after the arithmetic
  var b_next: array<Load4, B_LOADS>;
  for (var k04 = 0u; k04 < K4 + BK4; k04 = k04 + BK4) {
    if (k04 < K4) {
      for (var l = 0u; l < A_LOADS; l = l + 1u) {
        let e = tid + l * INV;
        let r = row0 + e / BK4;
        let kq = k04 + e % BK4;
        var v = Load4();
        if (r < M && kq < K4) { v = a[a_base4 + r * a_sm4 + kq]; }
        a_next[l] = v;
      }
      for (var l = 0u; l < B_LOADS; l = l + 1u) {
        let e = tid + l * INV;
        var v = Load4();
        if (B_T) {  // 4 consecutive k of column n
          let n = col04 * 4u + e / BK4;
          let kq = k04 + e % BK4;
          if (kq < K4 && n < N4 * 4u) { v = b[b_base4 + n * b_sn4 + kq]; }
        } else {  // 4 consecutive n of row k
          let kr = k04 * 4u + e / BN4;
          let cq = col04 + e % BN4;
          if (kr < K4 * 4u && cq < N4) { v = b[b_base4 + kr * b_sk4 + cq]; }
        }
        b_next[l] = v;
      }
    }
    if (k04 > 0u) {
      for (var kq = 0u; kq < BK4; kq = kq + 1u) {
        var av: array<vec4<f32>, TM>;
        for (var i = 0u; i < TM; i = i + 1u) { av[i] = a_tile[lid.y + WY * i][kq]; }
        for (var q = 0u; q < 4u; q = q + 1u) {
          var bv: array<vec4<f32>, TN4>;
          for (var j = 0u; j < TN4; j = j + 1u) { bv[j] = b_tile[kq * 4u + q][lid.x + WX * j]; }
          for (var i = 0u; i < TM; i = i + 1u) {
            for (var j = 0u; j < TN4; j = j + 1u) { acc[i * TN4 + j] = fma(vec4<f32>(av[i][q]), bv[j], acc[i * TN4 + j]); }
          }
        }
      }
      workgroupBarrier();
    }
    if (k04 < K4) {
      for (var l = 0u; l < A_LOADS; l = l + 1u) {
        let e = tid + l * INV;
        a_tile[e / BK4][e % BK4] = load4(a_next[l]);
      }
      for (var l = 0u; l < B_LOADS; l = l + 1u) {
        let e = tid + l * INV;
        if (B_T) {
          let n = e / BK4;
          let k = (e % BK4) * 4u;
          let v = load4(b_next[l]);
          for (var q = 0u; q < 4u; q = q + 1u) { b_tile[k + q][n / 4u][n % 4u] = v[q]; }
        } else {
          b_tile[e / BN4][e % BN4] = load4(b_next[l]);
        }
      }
      workgroupBarrier();
    }
  }
  for (var i = 0u; i < TM; i = i + 1u) {
    let r = row0 + lid.y + WY * i;
    if (r < M) {
      for (var j = 0u; j < TN4; j = j + 1u) {
        let cq = col04 + lid.x + WX * j;
        if (cq < N4) { store_c4(wid.z * M + r, 4u * cq, acc[i * TN4 + j]); }
      }
    }
  }
}

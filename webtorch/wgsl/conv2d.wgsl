// conv2d as an implicit GEMM: out[n, co, oh, ow] = sum over k = (ci, kh, kw) of
// x[n, g*Cg + ci, oh*sh - pt + kh*dh, ow*sw - pl + kw*dw] * w[g*Cog + co, ci, kh, kw] (+ bias[co]),
// zero outside x. Rows m = (n, oh, ow), columns co (within group g), K = Cg*KH*KW; the input patches
// are read straight from x into workgroup memory, never materialised.
// A workgroup of 256 invocations computes a BM x BN tile (BM = TX*TM, BN = TY*TN): invocation
// (tx, ty) owns rows tx + TX*i and columns ty + TY*j, so neighbouring invocations write neighbouring
// outputs (m is the fastest output dim) and read neighbouring words of a_tile. K advances BK at a
// time; each step fetches the next tile into registers, multiplies the stored one, then stores the
// fetched one (as matmul_vec4.wgsl). An invocation's A loads keep one row (BM divides 256) and its B
// loads one k (BK divides 256): their (ci, kh, kw) advance by BK with carries, not divisions.
// Split K (wid.z = split * groups + g): split s sums k in [s*k_chunk, (s+1)*k_chunk) into its own
// copy of the output (out[s]); the caller sums the copies. Bias goes into copy 0.
// params: N, C_in, H, W, C_out, OH, OW, KH, KW, sh, sw, pt, pl (i32 bits: may be negative), dh, dw,
// groups, x offset and strides (n, c, h, w), w offset and strides (o, i, h, w), has_bias, bias
// offset, k_chunk, m_tiles, n_tiles. x and w are any strided views; out is contiguous.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;

const TX = ${TX}u;
const TY = ${TY}u;
const TM = ${TM}u;
const TN = ${TN}u;
const BK = ${BK}u;
const BM = TX * TM;
const BN = TY * TN;
const A_LOADS = (BK * BM + 255u) / 256u;
const B_LOADS = (BK * BN + 255u) / 256u;

var<workgroup> a_tile: array<array<f32, BM>, BK>;  // [k][m]
var<workgroup> b_tile: array<array<f32, BN>, BK>;  // [k][co]

struct Kpos { ci: u32, kh: u32, kw: u32 }

// (ci, kh, kw) of k, with KW and KH*KW given.
fn kpos(k: u32, kw_n: u32, khw: u32) -> Kpos {
  let r = k % khw;
  return Kpos(k / khw, r / kw_n, r % kw_n);
}

// p advanced by BK = (step.ci, step.kh, step.kw): at most one carry per digit.
fn advance(p: Kpos, step: Kpos, kh_n: u32, kw_n: u32) -> Kpos {
  var q = Kpos(p.ci + step.ci, p.kh + step.kh, p.kw + step.kw);
  if (q.kw >= kw_n) { q.kw = q.kw - kw_n; q.kh = q.kh + 1u; }
  if (q.kh >= kh_n) { q.kh = q.kh - kh_n; q.ci = q.ci + 1u; }
  return q;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
  let n_tiles = params[30];
  let tile = wid.y * nwg.x + wid.x;
  if (tile >= params[29] * n_tiles) { return; }  // uniform: the whole workgroup leaves
  let N = params[0];
  let H = i32(params[2]);
  let W = i32(params[3]);
  let C_out = params[4];
  let OHW = params[5] * params[6];
  let OW = params[6];
  let KH = params[7];
  let KW = params[8];
  let G = params[15];
  let g = wid.z % G;
  let split = wid.z / G;
  let Cg = params[1] / G;
  let Cog = C_out / G;
  let KHW = KH * KW;
  let k_begin = split * params[28];
  let k_end = min(Cg * KHW, k_begin + params[28]);
  let M = N * OHW;
  let m0 = (tile / n_tiles) * BM;
  let n0 = (tile % n_tiles) * BN;
  let step = kpos(BK, KW, KHW);
  let dh = params[13];
  let dw = params[14];
  let xs_c = params[18];
  let xs_h = params[19];
  let xs_w = params[20];

  // This invocation's A row: output position (n, oh, ow) and the input corner it reads from.
  let am = m0 + tid % BM;
  let a_live = am < M;
  let a_r = am % OHW;
  let ih0 = i32((a_r / OW) * params[9]) - bitcast<i32>(params[11]);
  let iw0 = i32((a_r % OW) * params[10]) - bitcast<i32>(params[12]);
  let a_base = params[16] + (am / OHW) * params[17] + g * Cg * xs_c;
  var a_k: array<u32, A_LOADS>;
  var a_pos: array<Kpos, A_LOADS>;
  for (var l = 0u; l < A_LOADS; l = l + 1u) {
    a_k[l] = k_begin + (tid + l * 256u) / BM;
    a_pos[l] = kpos(a_k[l], KW, KHW);
  }
  // This invocation's B column k (one for all its loads) and the weight rows of its loads.
  var b_k = k_begin + tid % BK;
  var b_pos = kpos(b_k, KW, KHW);
  let w_base = params[21] + g * Cog * params[22];

  var acc: array<f32, TM * TN>;
  var a_next: array<f32, A_LOADS>;
  var b_next: array<f32, B_LOADS>;
  let tx = tid % TX;
  let ty = tid / TX;
  for (var k0 = k_begin; k0 < k_end + BK; k0 = k0 + BK) {
    if (k0 < k_end) {
      for (var l = 0u; l < A_LOADS; l = l + 1u) {
        let p = a_pos[l];
        let ih = ih0 + i32(p.kh * dh);
        let iw = iw0 + i32(p.kw * dw);
        var v = 0.0f;
        if (a_live && a_k[l] < k_end && ih >= 0 && ih < H && iw >= 0 && iw < W) {
          v = x[a_base + p.ci * xs_c + u32(ih) * xs_h + u32(iw) * xs_w];
        }
        a_next[l] = v;
        a_k[l] = a_k[l] + BK;
        a_pos[l] = advance(p, step, KH, KW);
      }
      let b_off = b_pos.ci * params[23] + b_pos.kh * params[24] + b_pos.kw * params[25];
      for (var l = 0u; l < B_LOADS; l = l + 1u) {
        let e = tid + l * 256u;
        let co = n0 + e / BK;
        var v = 0.0f;
        if (e < BK * BN && co < Cog && b_k < k_end) { v = w[w_base + co * params[22] + b_off]; }
        b_next[l] = v;
      }
      b_k = b_k + BK;
      b_pos = advance(b_pos, step, KH, KW);
    }
    if (k0 > k_begin) {
      for (var kk = 0u; kk < BK; kk = kk + 1u) {
        var av: array<f32, TM>;
        var bv: array<f32, TN>;
        for (var i = 0u; i < TM; i = i + 1u) { av[i] = a_tile[kk][tx + TX * i]; }
        for (var j = 0u; j < TN; j = j + 1u) { bv[j] = b_tile[kk][ty + TY * j]; }
        for (var i = 0u; i < TM; i = i + 1u) {
          for (var j = 0u; j < TN; j = j + 1u) { acc[i * TN + j] = fma(av[i], bv[j], acc[i * TN + j]); }
        }
      }
      workgroupBarrier();
    }
    if (k0 < k_end) {
      for (var l = 0u; l < A_LOADS; l = l + 1u) {
        let e = tid + l * 256u;
        if (e < BK * BM) { a_tile[e / BM][e % BM] = a_next[l]; }
      }
      for (var l = 0u; l < B_LOADS; l = l + 1u) {
        let e = tid + l * 256u;
        if (e < BK * BN) { b_tile[e % BK][e / BK] = b_next[l]; }
      }
      workgroupBarrier();
    }
  }
  let with_bias = params[26] != 0u && split == 0u;
  for (var i = 0u; i < TM; i = i + 1u) {
    let m = m0 + tx + TX * i;
    if (m < M) {
      let base = (split * N + m / OHW) * C_out * OHW + m % OHW;
      for (var j = 0u; j < TN; j = j + 1u) {
        let co = n0 + ty + TY * j;
        if (co < Cog) {
          let c = g * Cog + co;
          var v = acc[i * TN + j];
          if (with_bias) { v = v + bias[params[27] + c]; }
          out[base + c * OHW] = v;
        }
      }
    }
  }
}

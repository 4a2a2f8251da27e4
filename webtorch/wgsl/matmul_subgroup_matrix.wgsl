// (The runtime prepends `enable f16;` as for every float16 kernel.)
// Batched C = A @ B on tensor cores: f16 A and B, f32 accumulation, through WGSL's subgroup matrices
// (chromium_experimental_subgroup_matrix). One subgroup-matrix multiply is (SM x SK) @ (SK x SN), a
// configuration the adapter offers. A workgroup of WM x WN subgroups computes a BM x BN tile of C,
// each subgroup TM x TN result fragments of it. K advances BK at a time through workgroup memory:
// every invocation fetches its share of the next A and B tiles (one word, 2 halves, per load:
// neighbouring invocations read and store neighbouring words) into registers before the fragments of the current tiles are multiplied, then stores them.
// Each operand may be row- or column-major (A_COL_MAJOR, B_COL_MAJOR; a transposed weight loads as
// it is stored): a tile keeps the operand's layout.
// float32 A and B (torch.set_float32_matmul_precision "medium" / "high") are rounded to f16 as they
// are staged; with SPLIT each is also kept as a second f16 part, lo = f16(x - f32(hi)), and C
// accumulates hi*hi + hi*lo + lo*hi (lo*lo dropped): about 22 significant bits. Values beyond f16's
// range stage as +-inf (and NaN stays NaN), so C shows them instead of a finite wrong number.
// The caller guarantees whole tiles (M % BM, N % BN, K % BK == 0) and offsets and strides that are
// even (the two-element loads); it falls back to the other kernels otherwise.
// Params layout as in matmul.wgsl; C is contiguous.
enable subgroups;
enable chromium_experimental_subgroup_matrix;

@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> c: array<${OUT}>;
// one load: two elements, as a word of two halves (f16 inputs) or two f32 (float32 inputs)
@group(0) @binding(2) var<storage, read> a: array<${PAIR}>;
@group(0) @binding(3) var<storage, read> b: array<${PAIR}>;

const SM = ${SM}u;
const SN = ${SN}u;
const SK = ${SK}u;
const TM = ${TM}u;
const TN = ${TN}u;
const WM = ${WM}u;
const WN = ${WN}u;
const SG = ${SG}u;  // invocations per subgroup
const BK = ${BK}u;
const INV = WM * WN * SG;
const BM = WM * TM * SM;
const BN = WN * TN * SN;
const A_COL_MAJOR = ${A_COL_MAJOR};
const B_COL_MAJOR = ${B_COL_MAJOR};
// a tile's rows and row length (its contiguous dim) in halves
const A_RUN = select(BK, BM, A_COL_MAJOR);
const B_RUN = select(BN, BK, B_COL_MAJOR);
const A_LOADS = BM * BK / 2u / INV;
const B_LOADS = BK * BN / 2u / INV;
const SPLIT = ${SPLIT};

alias Left = subgroup_matrix_left<f16, SK, SM>;     // SM rows x SK columns
alias Right = subgroup_matrix_right<f16, SN, SK>;   // SK rows x SN columns
alias Acc = subgroup_matrix_result<f32, SN, SM>;    // SM rows x SN columns

var<workgroup> a_tile: array<f16, BM * BK>;
var<workgroup> b_tile: array<f16, BK * BN>;
// SPLIT: the second parts. Otherwise the code of second parts (which never runs) names a_tile and
// b_tile instead and these stay unused (compilers refuse a subgroup-matrix load from a small array).
var<workgroup> a_lo_tile: array<f16, ${A_LO_SIZE}>;
var<workgroup> b_lo_tile: array<f16, ${B_LO_SIZE}>;
// Results go out through workgroup memory, one fragment per subgroup at a time: a subgroup matrix
// stores only into an array of its own component type (f32), and C may be f16.
var<workgroup> staged: array<f32, WM * WN * SM * SN>;


fn hi_part(p: ${PAIR}) -> vec2<f16> {
  ${HI_PART}
}

fn lo_part(p: ${PAIR}, hi: vec2<f16>) -> vec2<f16> {
  ${LO_PART}
}

// two f16 infinities and NaNs, as bits: variables, since WGSL refuses them as constants
var<private> INF_BITS: u32 = 0x7c007c00u;
var<private> NAN_BITS: u32 = 0x7e007e00u;

// f32 -> f16 with f16's overflow: +-inf beyond its range, NaN kept (WGSL leaves both undefined)
fn to_f16(v: vec2<f32>) -> vec2<f16> {
  let inf = bitcast<vec2<f16>>(INF_BITS);
  let finite = vec2<f16>(clamp(v, vec2<f32>(-65504.0), vec2<f32>(65504.0)));
  let out = select(finite, select(inf, -inf, v < vec2<f32>(0.0)), abs(v) > vec2<f32>(65504.0));
  return select(out, bitcast<vec2<f16>>(NAN_BITS), v != v);
}

@compute @workgroup_size(INV)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lix: u32,
        @builtin(subgroup_id) sg: u32, @builtin(subgroup_invocation_id) lane: u32) {
  let M = params[0];
  let N = params[1];
  let K = params[2];
  let bases = batch_bases(wid.z);
  let a_sm = params[5];
  let a_sk = params[6];
  let b_sk = params[8];
  let b_sn = params[9];
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  // the tiles' first element and the stride between their rows, in halves
  let a_origin = bases.x + row0 * a_sm;
  let b_origin = bases.y + col0 * b_sn;
  let a_row_stride = select(a_sm, a_sk, A_COL_MAJOR);
  let b_row_stride = select(b_sk, b_sn, B_COL_MAJOR);
  let sub_row = (sg / WN) * TM * SM;
  let sub_col = (sg % WN) * TN * SN;
  var acc: array<Acc, TM * TN>;
  var a_next: array<${PAIR}, A_LOADS>;
  var b_next: array<${PAIR}, B_LOADS>;
  for (var k0 = 0u; k0 < K + BK; k0 = k0 + BK) {
    if (k0 < K) {  // fetch the tiles at k0
      for (var l = 0u; l < A_LOADS; l = l + 1u) {
        let e = lix + l * INV;
        a_next[l] = a[(a_origin + k0 * a_sk + (e / (A_RUN / 2u)) * a_row_stride) / 2u + e % (A_RUN / 2u)];
      }
      for (var l = 0u; l < B_LOADS; l = l + 1u) {
        let e = lix + l * INV;
        b_next[l] = b[(b_origin + k0 * b_sk + (e / (B_RUN / 2u)) * b_row_stride) / 2u + e % (B_RUN / 2u)];
      }
    }
    if (k0 > 0u) {  // multiply the tiles of k0 - BK
      for (var kk = 0u; kk < BK; kk = kk + SK) {
        var left: array<Left, TM>;
        var left_lo: array<Left, TM>;
        for (var i = 0u; i < TM; i = i + 1u) {
          let r = sub_row + i * SM;
          let at = select(r * BK + kk, kk * BM + r, A_COL_MAJOR);
          left[i] = subgroupMatrixLoad<Left>(&a_tile, at, A_COL_MAJOR, A_RUN);
          if (SPLIT) {
            left_lo[i] = subgroupMatrixLoad<Left>(&${A_LO}, at, A_COL_MAJOR, A_RUN);
          }
        }
        for (var j = 0u; j < TN; j = j + 1u) {
          let n = sub_col + j * SN;
          let bt = select(kk * BN + n, n * BK + kk, B_COL_MAJOR);
          let right = subgroupMatrixLoad<Right>(&b_tile, bt, B_COL_MAJOR, B_RUN);
          if (SPLIT) {
            let right_lo = subgroupMatrixLoad<Right>(&${B_LO}, bt, B_COL_MAJOR, B_RUN);
            for (var i = 0u; i < TM; i = i + 1u) {
              acc[i * TN + j] = subgroupMatrixMultiplyAccumulate(left_lo[i], right, acc[i * TN + j]);
              acc[i * TN + j] = subgroupMatrixMultiplyAccumulate(left[i], right_lo, acc[i * TN + j]);
            }
          }
          for (var i = 0u; i < TM; i = i + 1u) {
            acc[i * TN + j] = subgroupMatrixMultiplyAccumulate(left[i], right, acc[i * TN + j]);
          }
        }
      }
    }
    workgroupBarrier();
    if (k0 < K) {
      // a tile's rows are whole words (A_RUN, B_RUN even): word e of the tile is halves 2e, 2e + 1
      for (var l = 0u; l < A_LOADS; l = l + 1u) {
        let e = lix + l * INV;
        let h = hi_part(a_next[l]);
        a_tile[2u * e] = h.x;
        a_tile[2u * e + 1u] = h.y;
        if (SPLIT) {
          let lo = lo_part(a_next[l], h);
          ${A_LO}[2u * e] = lo.x;
          ${A_LO}[2u * e + 1u] = lo.y;
        }
      }
      for (var l = 0u; l < B_LOADS; l = l + 1u) {
        let e = lix + l * INV;
        let h = hi_part(b_next[l]);
        b_tile[2u * e] = h.x;
        b_tile[2u * e + 1u] = h.y;
        if (SPLIT) {
          let lo = lo_part(b_next[l], h);
          ${B_LO}[2u * e] = lo.x;
          ${B_LO}[2u * e + 1u] = lo.y;
        }
      }
    }
    workgroupBarrier();
  }
  let own = sg * SM * SN;
  for (var i = 0u; i < TM; i = i + 1u) {
    for (var j = 0u; j < TN; j = j + 1u) {
      subgroupMatrixStore(&staged, own, acc[i * TN + j], false, SN);
      workgroupBarrier();
      let corner = wid.z * M * N + (row0 + sub_row + i * SM) * N + col0 + sub_col + j * SN;
      for (var e = lane; e < SM * SN; e = e + SG) {
        c[corner + (e / SN) * N + e % SN] = ${OUT}(staged[own + e]);
      }
      workgroupBarrier();
    }
  }
}

// (The runtime prepends `enable f16;` as for every float16 kernel.)
// Batched C = A @ B on tensor cores: f16 A and B, f32 accumulation, through WGSL's subgroup matrices
// (chromium_experimental_subgroup_matrix). One subgroup-matrix multiply is (SM x SK) @ (SK x SN), a
// configuration the adapter offers. A workgroup of WM x WN subgroups computes a BM x BN tile of C,
// each subgroup TM x TN result fragments of it. K advances BK at a time through workgroup memory:
// every invocation fetches its share of the next A and B tiles (VEC elements, 16 bytes where the
// caller can, per load: neighbouring invocations read and store neighbouring vectors) into registers
// before the fragments of the current tiles are multiplied, then stores them.
// Each operand may be row- or column-major (A_COL_MAJOR, B_COL_MAJOR; a transposed weight loads as
// it is stored): a tile keeps the operand's layout, its rows PAD halves longer than the data so that
// the rows a fragment load reads fall in different memory banks. Loads and stores name the layout as
// the builtins' template argument (row_major or col_major), the current form of subgroupMatrixLoad /
// subgroupMatrixStore; Chrome 156 and dawn.node warn "use of deprecated builtin" on the first form,
// which passed it as a bool argument before the stride.
// Every loop over fragments and loads is unrolled (`// unroll v < N` .. `// end v` repeats its lines
// with #v = 0 .. N-1, kernels.unrolled; `// unroll o in a b` writes a block once for A and once for B,
// #o as a or b, #O as A or B), each fragment its own variable: with arrays of subgroup
// matrices indexed in loops, NVIDIA's Vulkan driver ran at 34 TFLOP/s on an H200 at 4096^3 f16,
// unrolled at 85, and with 16-byte loads and padded tile rows on top at 191 (bench/matmul_tc.mjs).
// Workgroup-memory indices are written out in terms of local_invocation_index, constants and the
// unrolled indices, so that Dawn's robustness pass can prove them in range and adds no clamps
// (clamped, the same kernel ran at 108).
// float32 A and B (torch.set_float32_matmul_precision "medium" / "high") are rounded to f16 as they
// are staged; with SPLIT each is also kept as a second f16 part, lo = f16(x - f32(hi)), and C
// accumulates hi*hi + hi*lo + lo*hi (lo*lo dropped): about 22 significant bits. Values beyond f16's
// range stage as +-inf (and NaN stays NaN), so C shows them instead of a finite wrong number.
// The caller guarantees whole tiles (M % BM, N % BN, K % BK == 0) and offsets and strides that are
// multiples of VEC (the vector loads); it falls back to the other kernels otherwise.
// Params layout as in matmul.wgsl; C is contiguous. store_result (matmul_subgroup_matrix_out_*.wgsl)
// writes a result fragment to C.
enable subgroups;
enable chromium_experimental_subgroup_matrix;

@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> c: array<${C_WORD}>;  // float16 C: two halves a word
// one load: VEC elements, as words of two halves (f16 inputs) or as float32s
@group(0) @binding(2) var<storage, read> a: array<${LOAD}>;
@group(0) @binding(3) var<storage, read> b: array<${LOAD}>;

const SM = ${SM}u;
const SN = ${SN}u;
const SK = ${SK}u;
const WM = ${WM}u;
const WN = ${WN}u;
const SG = ${SG}u;  // invocations per subgroup
const BK = ${BK}u;
const VEC = ${VEC}u;
const PAD = 8u;  // halves: 16 bytes, so that padded rows stay 16-byte aligned
const INV = WM * WN * SG;
const BM = WM * ${TM}u * SM;
const BN = WN * ${TN}u * SN;
const A_COL_MAJOR = ${A_COL_MAJOR};
const B_COL_MAJOR = ${B_COL_MAJOR};
// a tile's row length (its contiguous dim) in halves, and its padded row stride
const A_RUN = select(BK, BM, A_COL_MAJOR);
const B_RUN = select(BN, BK, B_COL_MAJOR);
const A_STRIDE = A_RUN + PAD;
const B_STRIDE = B_RUN + PAD;
// the steps between a tile's elements along its rows (r, n) and along K, in its padded layout
const A_STEP_R = select(A_STRIDE, 1u, A_COL_MAJOR);
const A_STEP_K = select(1u, A_STRIDE, A_COL_MAJOR);
const B_STEP_K = select(B_STRIDE, 1u, B_COL_MAJOR);
const B_STEP_N = select(1u, B_STRIDE, B_COL_MAJOR);
const SPLIT = ${SPLIT};

alias Left = subgroup_matrix_left<f16, SK, SM>;     // SM rows x SK columns
alias Right = subgroup_matrix_right<f16, SN, SK>;   // SK rows x SN columns
alias Acc = subgroup_matrix_result<f32, SN, SM>;    // SM rows x SN columns

var<workgroup> a_tile: array<f16, BM * BK / A_RUN * A_STRIDE>;
var<workgroup> b_tile: array<f16, BK * BN / B_RUN * B_STRIDE>;
// SPLIT: the second parts. Otherwise the code of second parts (which never runs) names a_tile and
// b_tile instead and these stay unused (compilers refuse a subgroup-matrix load from a small array).
var<workgroup> a_lo_tile: array<f16, ${A_LO_SIZE}>;
var<workgroup> b_lo_tile: array<f16, ${B_LO_SIZE}>;

// elements 2q, 2q + 1 of a load
fn pair(p: ${LOAD}, q: u32) -> ${PAIR} {
  return ${PAIR_OF};
}

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
  // the tiles' first element and the stride between their rows, in elements
  let a_origin = bases.x + row0 * a_sm;
  let b_origin = bases.y + col0 * b_sn;
  let a_row_stride = select(a_sm, a_sk, A_COL_MAJOR);
  let b_row_stride = select(b_sk, b_sn, B_COL_MAJOR);
  // sg < WM * WN: the remainder only shows the robustness pass that the tile offsets are in range
  let sub_row = ((sg % (WM * WN)) / WN) * ${TM}u * SM;
  let sub_col = ((sg % (WM * WN)) % WN) * ${TN}u * SN;
  // unroll i < ${TM}
  // unroll j < ${TN}
  var acc_#i_#j: Acc;
  // end j
  // end i
  // unroll o in a b
  // unroll l < ${#O_LOADS}
  var #o_next_#l: ${LOAD};
  // end l
  // end o
  for (var k0 = 0u; k0 < K + BK; k0 = k0 + BK) {
    if (k0 < K) {  // fetch the tiles at k0
      // unroll o in a b
      // unroll l < ${#O_LOADS}
      #o_next_#l = #o[(#o_origin + k0 * #o_sk + ((lix + #l * INV) / (#O_RUN / VEC)) * #o_row_stride) / VEC
                    + (lix + #l * INV) % (#O_RUN / VEC)];
      // end l
      // end o
    }
    if (k0 > 0u) {  // multiply the tiles of k0 - BK
      // unroll kk < ${K_STEPS}
      {
        // unroll i < ${TM}
        let left_#i = subgroupMatrixLoad<Left, ${A_LAYOUT}>(
            &a_tile, (sub_row + #i * SM) * A_STEP_R + #kk * SK * A_STEP_K, A_STRIDE);
        // end i
        // unroll j < ${TN}
        let right_#j = subgroupMatrixLoad<Right, ${B_LAYOUT}>(
            &b_tile, #kk * SK * B_STEP_K + (sub_col + #j * SN) * B_STEP_N, B_STRIDE);
        // end j
        if (SPLIT) {
          // unroll i < ${TM}
          let left_lo_#i = subgroupMatrixLoad<Left, ${A_LAYOUT}>(
              &${A_LO}, (sub_row + #i * SM) * A_STEP_R + #kk * SK * A_STEP_K, A_STRIDE);
          // end i
          // unroll j < ${TN}
          let right_lo_#j = subgroupMatrixLoad<Right, ${B_LAYOUT}>(
              &${B_LO}, #kk * SK * B_STEP_K + (sub_col + #j * SN) * B_STEP_N, B_STRIDE);
          // end j
          // unroll i < ${TM}
          // unroll j < ${TN}
          acc_#i_#j = subgroupMatrixMultiplyAccumulate(left_lo_#i, right_#j, acc_#i_#j);
          acc_#i_#j = subgroupMatrixMultiplyAccumulate(left_#i, right_lo_#j, acc_#i_#j);
          // end j
          // end i
        }
        // unroll i < ${TM}
        // unroll j < ${TN}
        acc_#i_#j = subgroupMatrixMultiplyAccumulate(left_#i, right_#j, acc_#i_#j);
        // end j
        // end i
      }
      // end kk
    }
    workgroupBarrier();
    if (k0 < K) {
      // load l holds elements VEC e .. VEC e + VEC - 1 (e = lix + l INV) of the tile's rows, laid one
      // after another (runs are multiples of VEC: no load straddles two rows); at: where they go
      // unroll o in a b
      // unroll l < ${#O_LOADS}
      {
        let at = ((lix + #l * INV) / (#O_RUN / VEC)) * #O_STRIDE + ((lix + #l * INV) % (#O_RUN / VEC)) * VEC;
        // unroll q < ${PAIRS}
        {
          let p = pair(#o_next_#l, #q);
          let h = hi_part(p);
          #o_tile[at + 2 * #q] = h.x;
          #o_tile[at + 2 * #q + 1] = h.y;
          if (SPLIT) {
            let lo = lo_part(p, h);
            ${#O_LO}[at + 2 * #q] = lo.x;
            ${#O_LO}[at + 2 * #q + 1] = lo.y;
          }
        }
        // end q
      }
      // end l
      // end o
    }
    workgroupBarrier();
  }
  // unroll i < ${TM}
  // unroll j < ${TN}
  store_result(acc_#i_#j, wid.z * M * N + (row0 + sub_row + #i * SM) * N + col0 + sub_col + #j * SN, N, sg, lane);
  // end j
  // end i
}

// Batched C = A @ B on CPU adapters (SwiftShader, lavapipe; see matmul.wgsl for the params layout):
// A and B f32 or half (matmul_load4.wgsl), computed in f32, A row-major in its last dim, B row-major
// (stride 1 along N) or, with B_T, transposed (stride 1 along K: a linear layer's x @ W.T), K and N
// multiples of 4, offsets and the other strides multiples of 4. Each invocation owns an RM x 4 block of
// C (RM rows, one vec4 of columns) and walks K a vec4 at a time, keeping everything in registers: no
// workgroup memory and no barriers, which CPU adapters run as switches between invocations (SwiftShader
// ran MiniLM's 64x384x1536 linear layer in 0.1 s this way, in 1.7-1.9 s in matmul_vec4.wgsl's tiles).
// C is stored by store_c4 (matmul_store_vec4.wgsl,
// or a fused elementwise epilogue: matmul_epilogue.wgsl).
@group(0) @binding(0) var<storage, read> params: array<u32>;

const RM = 8u;
const B_T = ${B_T};

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let M = params[0];
  let N4 = params[1] / 4u;
  let K4 = params[2] / 4u;
  if (gid.x >= N4 * ((M + RM - 1u) / RM)) { return; }
  let col4 = gid.x % N4;
  let row0 = (gid.x / N4) * RM;
  let bases = batch_bases(wid.z);
  let a_sm4 = params[5] / 4u;
  var a_rows: array<u32, RM>;  // rows past M read row M - 1 and are not stored
  for (var i = 0u; i < RM; i = i + 1u) { a_rows[i] = bases.x / 4u + min(row0 + i, M - 1u) * a_sm4; }
  // B_T: the vec4 of k of column 4 * col4 + j is at b_col + j * b_sn4 + kq; else that of row
  // 4 * kq + j of the four columns is at b_col + (4 * kq + j) * b_sk4
  let b_stride4 = select(params[8], params[9], B_T) / 4u;
  let b_col = bases.y / 4u + select(col4, col4 * 4u * b_stride4, B_T);
  var acc: array<vec4<f32>, RM>;
  for (var kq = 0u; kq < K4; kq = kq + 1u) {
    var bv: array<vec4<f32>, 4>;
    for (var j = 0u; j < 4u; j = j + 1u) {
      bv[j] = load4(b[b_col + select((4u * kq + j) * b_stride4, j * b_stride4 + kq, B_T)]);
    }
    for (var i = 0u; i < RM; i = i + 1u) {
      let av = load4(a[a_rows[i] + kq]);
      if (B_T) {
        acc[i] = acc[i] + vec4<f32>(dot(av, bv[0]), dot(av, bv[1]), dot(av, bv[2]), dot(av, bv[3]));
      } else {
        acc[i] = fma(vec4<f32>(av.x), bv[0], fma(vec4<f32>(av.y), bv[1],
                 fma(vec4<f32>(av.z), bv[2], fma(vec4<f32>(av.w), bv[3], acc[i]))));
      }
    }
  }
  // unrolled (kernels.unrolled; 8 = RM): constant indices keep acc in registers whatever store_c4 inlines
  // unroll i < 8
  if (row0 + #i < M) { store_c4(wid.z * M + row0 + #i, 4u * col4, acc[#i]); }
  // end i
}

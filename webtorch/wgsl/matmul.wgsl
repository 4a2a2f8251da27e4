// Batched C = A @ B over strided A (batch.., M, K) and B (batch.., K, N); C is contiguous, stored by
// store_c (matmul_store.wgsl, or a fused elementwise epilogue: matmul_epilogue.wgsl).
// 64x64 output tile per workgroup, 4x4 per invocation, K in steps of 16 through workgroup memory.
// Elements are stored as $$S and accumulated as $$T (f16 storage accumulates in f32).
// params (u32 words): M, N, K, batch_rank, a_offset, a_stride_m, a_stride_k, b_offset,
// b_stride_k, b_stride_n, batch shape[batch_rank], a batch strides[..], b batch strides[..].
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(2) var<storage, read> a: array<$S>;
@group(0) @binding(3) var<storage, read> b: array<$S>;

var<workgroup> a_tile: array<array<$T, 64>, 16>;
var<workgroup> b_tile: array<array<$T, 64>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = params[0];
  let N = params[1];
  let K = params[2];
  let bases = batch_bases(wid.z);
  let a_base = bases.x;
  let b_base = bases.y;
  let a_sm = params[5];
  let a_sk = params[6];
  let b_sk = params[8];
  let b_sn = params[9];
  let row0 = wid.y * 64u;
  let col0 = wid.x * 64u;
  let tid = lid.y * 16u + lid.x;
  var acc: array<array<$T, 4>, 4>;
  for (var k0 = 0u; k0 < K; k0 = k0 + 16u) {
    for (var j = 0u; j < 4u; j = j + 1u) {
      let e = tid + j * 256u;
      let ar = e / 16u;
      let ak = e % 16u;
      var av: $T = $T(0);
      if (row0 + ar < M && k0 + ak < K) { av = $T(a[a_base + (row0 + ar) * a_sm + (k0 + ak) * a_sk]); }
      a_tile[ak][ar] = av;
      let bk = e / 64u;
      let bc = e % 64u;
      var bv: $T = $T(0);
      if (k0 + bk < K && col0 + bc < N) { bv = $T(b[b_base + (k0 + bk) * b_sk + (col0 + bc) * b_sn]); }
      b_tile[bk][bc] = bv;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk = kk + 1u) {
      var ar: array<$T, 4>;
      var br: array<$T, 4>;
      for (var i = 0u; i < 4u; i = i + 1u) {
        ar[i] = a_tile[kk][lid.y * 4u + i];
        br[i] = b_tile[kk][lid.x * 4u + i];
      }
      for (var i = 0u; i < 4u; i = i + 1u) {
        for (var j = 0u; j < 4u; j = j + 1u) { acc[i][j] = $fma; }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i = i + 1u) {
    let r = row0 + lid.y * 4u + i;
    for (var j = 0u; j < 4u; j = j + 1u) {
      let col = col0 + lid.x * 4u + j;
      if (r < M && col < N) { store_c(wid.z * M + r, col, acc[i][j]); }
    }
  }
}

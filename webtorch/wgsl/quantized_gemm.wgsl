// out = x @ W.T with W quantized (webtorch.ao.quantization), for many rows of x (prefill): a 64 x 64
// tile of out per workgroup of 256 invocations (4 x 4 outputs each, rows ty + 16 i, columns tx + 16 j),
// K in steps of 16: a 64 x 16 tile of x and W's 64 x 16 tile, dequantized once into workgroup memory
// (word j of row n decoded into ws by the bit width's code, from webtorch/ao/quantization/_gpu.py),
// both stored K-major.
// Bindings and params: quantized_bindings.wgsl.

const BK = 16u;
const WPT = BK / PER;  // words of a W row per K step
var<workgroup> xs: array<f32, 1024>;  // [k][row]
var<workgroup> ws: array<f32, 1024>;  // [k][col]

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let M = params[0];
  let N = params[1];
  let K = params[2];
  let W = params[3];
  let GS = params[4];
  let xo = params[5];
  let row0 = wid.y * 64u;
  let col0 = wid.x * 64u;
  let tx = li % 16u;
  let ty = li / 16u;
  var acc: array<array<f32, 4>, 4>;
  for (var k0 = 0u; k0 < K; k0 = k0 + BK) {
    for (var e = li; e < 1024u; e = e + 256u) {
      let r = row0 + e / BK;
      let k = k0 + e % BK;
      var v = 0.0f;
      if (r < M && k < K) {
        v = f32(x[xo + r * K + k]);
      }
      xs[(e % BK) * 64u + e / BK] = v;
    }
    for (var e = li; e < 64u * WPT; e = e + 256u) {
      let c = e / WPT;
      let n = col0 + c;
      let j = k0 / PER + e % WPT;
      let kk = (e % WPT) * PER;
      var word = 0u;
      if (n < N && j < W) {
        word = qdata[n * W + j];
      }
$dequant
    }
    workgroupBarrier();
    for (var kk = 0u; kk < BK; kk = kk + 1u) {
      var a: array<f32, 4>;
      var b: array<f32, 4>;
      for (var i = 0u; i < 4u; i = i + 1u) {
        a[i] = xs[kk * 64u + ty + 16u * i];
        b[i] = ws[kk * 64u + tx + 16u * i];
      }
      for (var i = 0u; i < 4u; i = i + 1u) {
        for (var jj = 0u; jj < 4u; jj = jj + 1u) {
          acc[i][jj] = fma(a[i], b[jj], acc[i][jj]);
        }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i = i + 1u) {
    let r = row0 + ty + 16u * i;
    for (var jj = 0u; jj < 4u; jj = jj + 1u) {
      let n = col0 + tx + 16u * jj;
      if (r < M && n < N) {
        let total = acc[i][jj];
        out[r * N + n] = with_bias(wt_store($finish), n);
      }
    }
  }
}

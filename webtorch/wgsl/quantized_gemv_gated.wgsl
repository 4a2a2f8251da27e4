// silu(x @ G.T) * (x @ U.T) for two int4 layers of one shape (a gated MLP's gate and up projections), for
// few rows of x (decode): quantized_gemv.wgsl's lanes over both packed rows at once (x read once for
// both), each product rounded to $O as its layer stores it, silu's result rounded as the op stores it,
// then the product rounded. params: M, N, K, words per row, group size, x's offset.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$O>;
@group(0) @binding(2) var<storage, read> x: array<$X>;
@group(0) @binding(3) var<storage, read> qdata: array<u32>;
@group(0) @binding(4) var<storage, read> scale: array<$S>;
@group(0) @binding(5) var<storage, read> zero: array<$S>;
@group(0) @binding(6) var<storage, read> qdata2: array<u32>;
@group(0) @binding(7) var<storage, read> scale2: array<$S>;
@group(0) @binding(8) var<storage, read> zero2: array<$S>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let N = params[1];
  let K = params[2];
  let W = params[3];
  let GS = params[4];
  let lane = li % LANES;
  let n = wid.x * ROWS + li / LANES;
  let xrow = params[5] + wid.y * K;
  var acc = 0.0f;
  var acc2 = 0.0f;
  if (n < N) {
    for (var j = lane; j < W; j = j + LANES) {
      let k0 = j * PER;
      {
        let word = qdata[n * W + j];
$decode
      }
      {
        let word = qdata2[n * W + j];
$decode2
      }
    }
  }
  let gate = f32(wt_store(lanes_sum(li, acc)));
  let up = f32(wt_store(lanes_sum(li, acc2)));
  if (lane == 0u && n < N) {
    out[wid.y * N + n] = wt_store(f32(wt_store(gate * wt_sigmoid(gate))) * up);
  }
}

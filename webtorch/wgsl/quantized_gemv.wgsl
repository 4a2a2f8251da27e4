// out = x @ W.T with W quantized (webtorch.ao.quantization), for few rows of x (decode): each
// workgroup takes ROWS output features, LANES invocations per feature walking its packed row of W
// (words j = lane, lane + LANES, ..: neighbouring invocations read neighbouring words), then summing
// their partials by lanes_sum (gemv_lanes.wgsl). workgroup_id.y is the row of x.
// Bindings and params: quantized_bindings.wgsl.
// The decoding (filled in per bit width by webtorch/ao/quantization/_gpu.py) adds word `word`
// (elements k0 .. k0 + PER - 1 of W's row n) times x into acc; out is stored through wt_store.

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
  if (n < N) {
    for (var j = lane; j < W; j = j + LANES) {
      let word = qdata[n * W + j];
      let k0 = j * PER;
$decode
    }
  }
  let total = lanes_sum(li, acc);
  if (lane == 0u && n < N) {
    out[wid.y * N + n] = with_bias(wt_store($finish), n);
  }
}

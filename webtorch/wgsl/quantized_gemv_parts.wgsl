// x @ W_p.T + bias_p for PARTS int4 layers reading one x (a decode step's q, k and v projections), their
// outputs side by side in one row of out (part p's at its start, the sum of the parts' N before it), for
// few rows of x: quantized_gemv.wgsl's lanes, each output feature n walking the packed row of its part's
// W; each product rounded to $O as its layer stores it, then its bias added and rounded as the layer's
// add does. params: M, total N, K, words per row, group size, x's offset, then per part its N and
// 1 + its bias's offset (0: none). Bindings per part p: qdata_p, scale_p, zero_p, bias_p.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$O>;
@group(0) @binding(2) var<storage, read> x: array<$X>;
$bindings

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let total_n = params[1];
  let K = params[2];
  let W = params[3];
  let GS = params[4];
  let lane = li % LANES;
  let row = wid.x * ROWS + li / LANES;
  let xrow = params[5] + wid.y * K;
  var acc = 0.0f;
  var start = 0u;
  var bias_word = 0u;
  var n = 0u;
  var part = 0u;
  var N = 0u;
$parts
  let total = lanes_sum(li, acc);
  if (lane == 0u && row < total_n) {
    var v = wt_store(total);
$biases
    out[wid.y * total_n + row] = v;
  }
}

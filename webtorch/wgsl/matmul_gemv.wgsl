// C = A @ B for a few rows of A (a decode step: x @ W.T) with B's stride 1 along K (params layout in
// matmul.wgsl): each workgroup takes ROWS columns of C for one row of A (workgroup_id.y), LANES
// invocations per column walking K (k = lane, lane + LANES, ..: neighbouring invocations read
// neighbouring elements of B's row), their partial sums then added by lanes_sum (gemv_lanes.wgsl). The tiled
// kernels compute a whole 64-row tile for the one row there is, and read B at a fraction of the
// memory's bandwidth. Accumulates in f32; C stored by store_c. The walk along K (from
// webtorch/backend/kernels.py) reads A and B element by element, or as vec4s where A's rows are
// contiguous and every row of A and B starts at a multiple of 4 elements (K too).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(2) var<storage, read> a: array<$L>;
@group(0) @binding(3) var<storage, read> b: array<$L>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let M = params[0];
  let N = params[1];
  let K = params[2];
  let lane = li % LANES;
  let col = wid.x * ROWS + li / LANES;
  let row = wid.y;
  var acc = 0.0f;
  if (col < N) {
    let bases = batch_bases(wid.z);
    let ai = bases.x + row * params[5];
    let bi = bases.y + col * params[9];
$walk
  }
  let total = lanes_sum(li, vec2<f32>(acc, 0.0f)).x;
  if (lane == 0u && col < N) {
    store_c(wid.z * M + row, col, $T(total));
  }
}

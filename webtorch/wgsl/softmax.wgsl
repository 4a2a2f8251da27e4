// softmax / log_softmax of each row in one kernel (rows over threads: row_threads.wgsl). A row that
// fits in registers is read once: its max, then its sum of exp(x - max), are joined across its
// threads and the outputs written (one read, one write). Longer rows (tpr = 256) keep a running
// (max, sum) per thread in one pass, then read again to write.
// params: the layout of rows.wgsl with one reduced dim (row_len, row stride), then tpr.
// The output is contiguous: row o, element r at o * row_len + r. Input and output are stored as $S
// (float16: f16), computed in f32 and rounded once on the store, as PyTorch's CUDA half softmax.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read> x: array<$S>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
$row_threads_start
  if (row_len <= K * tpr) {  // uniform: the row in registers
    var v: array<f32, 16>;
    var m = -wt_inf();
    for (var k = 0u; k < K; k = k + 1u) {
      let r = lane + k * tpr;
      if (live && r < row_len) {
        v[k] = f32(x[base + r * stride]);
        m = wt_max(m, v[k]);
      }
    }
    m = row_join(m, 0.0f, lid, tpr, 0u).x;
    var total = 0.0f;
    var e: array<f32, 16>;  // exp(x - max), computed once
    for (var k = 0u; k < K; k = k + 1u) {
      if (live && lane + k * tpr < row_len) {
        e[k] = wt_exp(v[k] - m);
        total = total + e[k];
      }
    }
    total = row_join(m, total, lid, tpr, 1u).y;
    for (var k = 0u; k < K; k = k + 1u) {
      let r = lane + k * tpr;
      if (live && r < row_len) {
        let shifted = v[k] - m;
        out[dst + r] = wt_store($result_in_registers);
      }
    }
    return;
  }
  var m = -wt_inf();
  var total = 0.0f;
  for (var r = lane; r < row_len; r = r + tpr) {
    let j = join(m, total, f32(x[base + r * stride]), 1.0f);
    m = j.x;
    total = j.y;
  }
  let j = row_join(m, total, lid, tpr, 2u);
  m = j.x;
  total = j.y;
  for (var r = lane; r < row_len; r = r + tpr) {
    let shifted = f32(x[base + r * stride]) - m;
    out[dst + r] = wt_store($result);
  }
}

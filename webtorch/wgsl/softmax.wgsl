// softmax / log_softmax of each row in one kernel: one workgroup per row finds the row's max,
// then the sum of exp(x - max), then writes every output (three passes over the row, one launch).
// params: the layout of rows.wgsl with one reduced dim (row_len, row stride).
// The output is contiguous: row o, element r at o * row_len + r.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;

var<workgroup> partial: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let o = wid.y * nwg.x + wid.x;
  if (o >= params[0]) { return; }  // uniform per workgroup, so barriers below stay uniform
  let row_len = params[1];
  var m = -wt_inf();
  for (var r = lid; r < row_len; r = r + 256u) { m = wt_max(m, x[element_offset(o, r)]); }
  partial[lid] = m;
  workgroupBarrier();
  for (var s = 128u; s > 0u; s = s >> 1u) {
    if (lid < s) { partial[lid] = wt_max(partial[lid], partial[lid + s]); }
    workgroupBarrier();
  }
  m = partial[0];
  workgroupBarrier();
  var total = 0.0f;
  for (var r = lid; r < row_len; r = r + 256u) { total = total + wt_exp(x[element_offset(o, r)] - m); }
  partial[lid] = total;
  workgroupBarrier();
  for (var s = 128u; s > 0u; s = s >> 1u) {
    if (lid < s) { partial[lid] = partial[lid] + partial[lid + s]; }
    workgroupBarrier();
  }
  total = partial[0];
  for (var r = lid; r < row_len; r = r + 256u) {
    let shifted = x[element_offset(o, r)] - m;
    out[o * row_len + r] = $result;
  }
}

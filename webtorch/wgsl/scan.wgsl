// Inclusive scan (cumsum, cumprod) of contiguous rows, one workgroup per row: each of the 256
// invocations folds a chunk, the chunk totals are scanned in workgroup memory, then each
// chunk is rescanned from its prefix.
// Elements are stored as $$S and combined as $$T (f16 storage accumulates in f32).
// params (u32 words): n_rows, row_len.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read> x: array<$S>;

var<workgroup> totals: array<$T, 256>;

fn combine(a: $T, b: $T) -> $T { return $combine; }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= params[0]) { return; }  // uniform per workgroup
  let len = params[1];
  let chunk = (len + 255u) / 256u;
  let start = row * len + min(lid * chunk, len);
  let end = row * len + min(lid * chunk + chunk, len);
  var acc: $T = $identity;
  for (var j = start; j < end; j = j + 1u) { acc = combine(acc, $T(x[j])); }
  totals[lid] = acc;
  workgroupBarrier();
  for (var s = 1u; s < 256u; s = s << 1u) {
    var v = totals[lid];
    if (lid >= s) { v = combine(totals[lid - s], v); }
    workgroupBarrier();
    totals[lid] = v;
    workgroupBarrier();
  }
  acc = $identity;
  if (lid > 0u) { acc = totals[lid - 1u]; }
  for (var j = start; j < end; j = j + 1u) {
    acc = combine(acc, $T(x[j]));
    out[j] = wt_store(acc);
  }
}

// Columns: rows with one reduced dim of stride != 1 whose neighbours are neighbours in memory (the
// innermost kept dim has stride 1), e.g. x.sum(0) of a contiguous matrix. A workgroup is tx rows x
// ty lanes (tx * ty = WG; adjacent threads take adjacent rows, so reads coalesce); lane t walks
// elements t, t + ty, ... of its chunk of the row with four independent accumulators, then the lanes
// join. With few rows the reduced dim splits into chunks over workgroups: out then holds
// n_chunks x n_out partials (chunk-major: the second launch reads them as columns again).
// params: rows.wgsl's layout with one reduced dim, then chunk, tx.
fn element(j: u32, r: u32) -> Acc { return Acc(cv(x[j]), $candidate); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let n_out = params[0];
  let row_len = params[1];
  let rb = 5u + 2u * params[2];
  let stride = params[rb + 1u];
  let chunk = params[rb + 2u];
  let tx = params[rb + 3u];
  let ty = WG / tx;
  let n_groups = (n_out + tx - 1u) / tx;
  let f = wid.y * nwg.x + wid.x;
  if (f >= n_groups * max((row_len + chunk - 1u) / chunk, 1u)) { return; }  // uniform per workgroup
  let c = f / n_groups;
  let o = (f - c * n_groups) * tx + lid % tx;
  let t = lid / tx;
  let live = o < n_out;  // threads past the last row still take part in the barriers
  var a0 = empty_acc();
  var a1 = empty_acc();
  var a2 = empty_acc();
  var a3 = empty_acc();
  if (live) {
    let r1 = min(row_len, (c + 1u) * chunk);
    let step = ty * stride;
    var r = c * chunk + t;
    var j = element_offset(o, 0u) + r * stride;
    for (; r + 3u * ty < r1; r = r + 4u * ty) {
      let e0 = element(j, r);
      let e1 = element(j + step, r + ty);
      let e2 = element(j + 2u * step, r + 2u * ty);
      let e3 = element(j + 3u * step, r + 3u * ty);
      a0 = merge(a0, e0);
      a1 = merge(a1, e1);
      a2 = merge(a2, e2);
      a3 = merge(a3, e3);
      j = j + 4u * step;
    }
    for (; r < r1; r = r + ty) {
      a0 = merge(a0, element(j, r));
      j = j + step;
    }
  }
  let a = join_threads(merge(merge(a0, a1), merge(a2, a3)), lid, tx, ty);
  if (live && t == 0u) { store(c * n_out + o, a); }
}

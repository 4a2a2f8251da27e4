// join_threads for reduce.wgsl: a tree through workgroup memory, its lowest levels by subgroup
// shuffles where the adapter has them (subgroup_*.wgsl).
var<workgroup> shared_acc: array<Acc, 256>;

// Joins the accumulators of each group of `count` threads spaced `unit` apart in the workgroup (its
// k-th thread: (lid / unit) % count); the group's first thread gets the result. Every thread of the
// workgroup must call it (barriers). Threads fewer than SG_MIN lanes apart join by subgroup shuffles
// (subgroup_*.wgsl), the rest through shared_acc.
fn join_threads(a: Acc, lid: u32, unit: u32, count: u32) -> Acc {
  var acc = a;
  var shuffled = 1u;  // threads this many units apart are joined
  for (; shuffled < count && shuffled * unit < SG_MIN; shuffled = shuffled << 1u) {
    acc = merge(acc, Acc(shuffle_xor_$T(acc.v, shuffled * unit), shuffle_xor_u32(acc.i, shuffled * unit)));
  }
  if (shuffled >= count) { return acc; }
  shared_acc[lid] = acc;
  workgroupBarrier();
  let k = (lid / unit) % count;
  for (var s = count / 2u; s >= shuffled; s = s >> 1u) {
    if (k < s) { shared_acc[lid] = merge(shared_acc[lid], shared_acc[lid + s * unit]); }
    workgroupBarrier();
  }
  return shared_acc[lid];
}


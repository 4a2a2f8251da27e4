// accumulate() for reduce_by_rows.wgsl over a contiguous row whose start is a multiple of 4 elements
// (x is bound as vec4s): each of the row's tpr threads loads four vec4s per loop trip (all issued
// before any is folded: the loads in flight set the bandwidth) into four accumulators, then the
// last row_len % 4 elements one each.
fn fold4(a: ptr<function, array<Acc, 4>>, v: vec4<$in_storage>, r: u32) {
  (*a)[0] = merge((*a)[0], Acc(cv(v.x), r));
  (*a)[1] = merge((*a)[1], Acc(cv(v.y), r + 1u));
  (*a)[2] = merge((*a)[2], Acc(cv(v.z), r + 2u));
  (*a)[3] = merge((*a)[3], Acc(cv(v.w), r + 3u));
}

fn accumulate(o: u32, r0: u32, r1: u32, lane: u32, tpr: u32) -> Acc {
  let base = element_offset(o, 0u);
  let n4 = (r1 - r0) / 4u;
  let b4 = (base + r0) / 4u;  // chunks are multiples of 4 elements
  var a = array<Acc, 4>(empty_acc(), empty_acc(), empty_acc(), empty_acc());
  var k = lane;
  for (; k + 3u * tpr < n4; k = k + 4u * tpr) {
    let v0 = x[b4 + k];
    let v1 = x[b4 + k + tpr];
    let v2 = x[b4 + k + 2u * tpr];
    let v3 = x[b4 + k + 3u * tpr];
    fold4(&a, v0, r0 + 4u * k);
    fold4(&a, v1, r0 + 4u * (k + tpr));
    fold4(&a, v2, r0 + 4u * (k + 2u * tpr));
    fold4(&a, v3, r0 + 4u * (k + 3u * tpr));
  }
  for (; k < n4; k = k + tpr) { fold4(&a, x[b4 + k], r0 + 4u * k); }
  for (var t = r0 + 4u * n4 + lane; t < r1; t = t + tpr) {  // tpr may be below 3
    let j = base + t;
    a[0] = merge(a[0], Acc(cv(x[j / 4u][j % 4u]), t));
  }
  return merge(merge(a[0], a[1]), merge(a[2], a[3]));
}

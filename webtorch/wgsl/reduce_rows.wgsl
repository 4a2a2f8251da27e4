// accumulate() for reduce_by_rows.wgsl over scalar elements: element r of row o sits at $address
// (base + r when the row is contiguous, else through rows.wgsl's strided addressing). The row's tpr
// threads take consecutive elements (coalesced), four loads per loop trip before any is folded in.
fn element(o: u32, base: u32, r: u32) -> Acc {
  let j = $address;
  return Acc(cv(x[j]), $candidate);
}

fn accumulate(o: u32, r0: u32, r1: u32, lane: u32, tpr: u32) -> Acc {
  let base = element_offset(o, 0u);
  var a0 = empty_acc();
  var a1 = empty_acc();
  var a2 = empty_acc();
  var a3 = empty_acc();
  var r = r0 + lane;
  for (; r + 3u * tpr < r1; r = r + 4u * tpr) {
    let e0 = element(o, base, r);
    let e1 = element(o, base, r + tpr);
    let e2 = element(o, base, r + 2u * tpr);
    let e3 = element(o, base, r + 3u * tpr);
    a0 = merge(a0, e0);
    a1 = merge(a1, e1);
    a2 = merge(a2, e2);
    a3 = merge(a3, e3);
  }
  for (; r < r1; r = r + tpr) { a0 = merge(a0, element(o, base, r)); }
  return merge(merge(a0, a1), merge(a2, a3));
}

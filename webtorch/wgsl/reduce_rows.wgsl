// accumulate() for reduce.wgsl over scalar elements: element r of row o sits at $address
// (base + r when the row is contiguous, else through rows.wgsl's strided addressing). Threads take
// consecutive elements (coalesced), four loads per loop trip before any is folded in.
fn element(o: u32, base: u32, r: u32) -> Acc {
  let j = $address;
  return Acc(cv(x[j]), $candidate);
}

fn accumulate(o: u32, r0: u32, r1: u32, lid: u32) -> Acc {
  let base = element_offset(o, 0u);
  var a0 = empty_acc();
  var a1 = empty_acc();
  var a2 = empty_acc();
  var a3 = empty_acc();
  var r = r0 + lid;
  for (; r + 3u * WG < r1; r = r + 4u * WG) {
    let e0 = element(o, base, r);
    let e1 = element(o, base, r + WG);
    let e2 = element(o, base, r + 2u * WG);
    let e3 = element(o, base, r + 3u * WG);
    a0 = merge(a0, e0);
    a1 = merge(a1, e1);
    a2 = merge(a2, e2);
    a3 = merge(a3, e3);
  }
  for (; r < r1; r = r + WG) { a0 = merge(a0, element(o, base, r)); }
  return merge(merge(a0, a1), merge(a2, a3));
}

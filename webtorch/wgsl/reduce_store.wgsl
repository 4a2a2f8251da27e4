// finish() for reduce_by_rows.wgsl: the row's (or chunk's) first thread writes its result.
fn finish(f: u32, first: bool, a: Acc, lid: u32, n_chunks: u32) {
  if (first) { store(f, a); }
}

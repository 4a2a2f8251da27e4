// Reductions (sum, prod, max, min; arg-reductions keep the winner's index) of the "rows" of a strided
// input: row o is the o-th index over the kept dims, its element r the r-th over the reduced dims
// (rows.wgsl's layout). Shared by two schemes: reduce_by_rows.wgsl (threads along a row) and
// reduce_by_cols.wgsl (adjacent threads on adjacent rows, for rows that run across memory). Threads
// join their partials by reduce_join.wgsl, or not at all (reduce_solo.wgsl: one partial per thread).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$out_storage>;
@group(0) @binding(2) var<storage, read> x: array<$in_type>;
$index_binding

const WG = 256u;
const NONE = 0xffffffffu;  // the index of an empty accumulator

// A partial result: the value, and for arg-reductions the row index it came from.
struct Acc { v: $T, i: u32 }

// Should (bv, bi) replace (av, ai)?
fn takes(av: $T, ai: u32, bv: $T, bi: u32) -> bool { return $takes; }
fn combine(a: $T, b: $T) -> $T { return $combine; }
fn cv(s: $in_storage) -> $T { return $convert; }
fn empty_acc() -> Acc { return Acc($identity, NONE); }

// a joined with b; for arg-reductions the winner (takes() orders by value, then index, so the
// order of joins does not matter).
fn merge(a: Acc, b: Acc) -> Acc {
  if ($arg) {
    if (b.i != NONE && (a.i == NONE || takes(a.v, a.i, b.v, b.i))) { return b; }
    return a;
  }
  return Acc(combine(a.v, b.v), 0u);
}

// Writes result f (and for arg-reductions its index).
fn store(f: u32, a: Acc) {
  out[f] = $store;
$index_store
}

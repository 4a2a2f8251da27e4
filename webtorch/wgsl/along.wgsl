// The element of x (take.wgsl) or dst (put.wgsl) for position i of a slice-by-index along one dim:
// positions run row-major over (outer, n_idx, inner); position (a, j, b) is x's (a, index[j], b).
// The index vector is the kernel's `offsets` binding, from element params[1]; it was checked in range.
// params from word base: n_idx, inner, x's element offset, outer stride, dim stride, inner stride.
fn along_offset(i: u32, base: u32) -> u32 {
  let inner = params[base + 1u];
  let aj = i / inner;
  let a = aj / params[base];
  let j = aj - a * params[base];
  return params[base + 2u] + a * params[base + 3u] + u32(offsets[params[1] + j]) * params[base + 4u]
      + (i - aj * inner) * params[base + 5u];
}

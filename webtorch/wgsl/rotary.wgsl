// The rotary embedding of a decode step's rows (webtorch.hf), one invocation per element: row r of x
// (rows of D contiguous elements at x_offset + r * D), element d, becomes
//   x[d] * cos[d] + rotate_half(x)[d] * sin[d],  rotate_half(x)[d] = -x[d + D/2] (d < D/2), x[d - D/2] after,
// each product and the sum rounded to $S as the separate ops round them (flags 1: no rotation, x[d] as
// it is: a copy). It goes to out at out_offset + r * row_stride + p * D + d, p = 0, or (flags 2) the
// position the device holds (position[0], a float32 whole number): a KV cache's row, written in place.
// Flags 4: a second pair in the same kernel, the invocations after the first rows * D copying x2 (rows
// of D at x2 offset, unrotated) into out2 as x goes to out (a step's key and value into their caches).
// params: rows, D, row_stride, flags, x offset, cos offset, sin offset, out offset, x2 offset, out2 offset.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read> x: array<$S>;
@group(0) @binding(3) var<storage, read> cos_table: array<$S>;
@group(0) @binding(4) var<storage, read> sin_table: array<$S>;
@group(0) @binding(5) var<storage, read> position: array<f32>;
@group(0) @binding(6) var<storage, read_write> out2: array<$S>;
@group(0) @binding(7) var<storage, read> x2: array<$S>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
  let rows = params[0];
  let D = params[1];
  let flags = params[3];
  var p = 0u;
  if ((flags & 2u) != 0u) { p = u32(position[0]); }
  if (i >= rows * D) {
    let j = i - rows * D;
    if ((flags & 4u) != 0u && j < rows * D) {
      let r = j / D;
      out2[params[9] + r * params[2] + p * D + j - r * D] = x2[params[8] + j];
    }
    return;
  }
  let r = i / D;
  let d = i - r * D;
  let row = params[4] + r * D;
  var v = f32(x[row + d]);
  if ((flags & 1u) == 0u) {
    let half = D / 2u;
    var rotated: f32;
    if (d < half) { rotated = -f32(x[row + d + half]); } else { rotated = f32(x[row + d - half]); }
    let a = f32(wt_store(v * f32(cos_table[params[5] + d])));
    let b = f32(wt_store(rotated * f32(sin_table[params[6] + d])));
    v = a + b;
  }
  out[params[7] + r * params[2] + p * D + d] = wt_store(v);
}

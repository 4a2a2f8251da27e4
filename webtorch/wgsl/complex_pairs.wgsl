// complex64 multiply, add, subtract and abs in one kernel over the interleaved (re, im) f32 pairs of
// contiguous tensors of one shape (their composed forms over the real and imaginary parts take up to 8
// real kernels). One thread per complex element; abs writes one f32 (prelude's wt_hypot: no overflow in
// re^2 + im^2, torch's inf and NaN rules), the others a pair.
// params (u32 words): n (complex elements), op (0 mul, 1 add, 2 sub, 3 abs), offsets of a and b (complex
// elements; abs reads a only).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read> b: array<vec2<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= params[0]) { return; }
  let x = a[params[2] + i];
  let op = params[1];
  if (op == 3u) {
    out[i] = wt_hypot(x.x, x.y);
    return;
  }
  let y = b[params[3] + i];
  var z = x - y;
  if (op == 0u) {
    z = vec2<f32>(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
  } else if (op == 1u) {
    z = x + y;
  }
  out[2u * i] = z.x;
  out[2u * i + 1u] = z.y;
}

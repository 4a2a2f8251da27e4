// One radix-2 or radix-4 pass of Stockham's autosort FFT over rows of n complex points (interleaved f32
// pairs). Before a pass of radix R each row holds n / p interleaved transforms of length p, after it n / Rp
// of length Rp, so passes of radix 4 (then one of radix 2 for an odd power of two) ping-ponging between
// two buffers leave the transform in natural order, with no bit reversal. Thread i of a row (i < n / R)
// reads the points i + q n / R (q < R), turns point q by the twiddle w^(q k n / Rp) (k = i mod p: the
// points' place in their sub-transforms), takes their R-point DFT and writes it at j + m p (m < R), where
// j = R i - (R - 1) k.
// params (u32 words): threads (rows x n / R), n / R, p, src offset (complex elements), the table stride
// n / Rp, table offset, sign (0: -1, the forward transform; 1: +1), R. table[m] = exp(sign 2 pi i m / n)
// for m < n, rounded from float64 on the host.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read> table: array<vec2<f32>>;

fn turn(z: vec2<f32>, w: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(z.x * w.x - z.y * w.y, z.x * w.y + z.y * w.x);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (t >= params[0]) { return; }
  let gap = params[1];  // n / R: the distance between a thread's points
  let p = params[2];
  let radix = params[7];
  let row = t / gap;
  let i = t % gap;
  let k = i & (p - 1u);
  let first = params[3] + row * radix * gap + i;
  let step = k * params[4];
  let j = row * radix * gap + radix * i - (radix - 1u) * k;
  if (radix == 2u) {
    let a = src[first];
    let b = turn(src[first + gap], table[params[5] + step]);
    dst[j] = a + b;
    dst[j + p] = a - b;
    return;
  }
  let u0 = src[first];
  let u1 = turn(src[first + gap], table[params[5] + step]);
  let u2 = turn(src[first + 2u * gap], table[params[5] + 2u * step]);
  let u3 = turn(src[first + 3u * gap], table[params[5] + 3u * step]);
  let v0 = u0 + u2;
  let v1 = u0 - u2;
  let v2 = u1 + u3;
  let d = u1 - u3;  // times exp(sign i pi / 2) = sign i
  let v3 = select(vec2<f32>(d.y, -d.x), vec2<f32>(-d.y, d.x), params[6] == 1u);
  dst[j] = v0 + v2;
  dst[j + p] = v1 + v3;
  dst[j + 2u * p] = v0 - v2;
  dst[j + 3u * p] = v1 - v3;
}

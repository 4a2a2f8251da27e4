// Helpers shared by every generated kernel. WGSL has no NaN/infinity literals or tests,
// and compilers may fold them away, so both are built from bits. The bits sit in private
// variables: a constant bitcast to inf/NaN is a shader-creation error in Chrome's Tint.
var<private> wt_inf_bits: u32 = 0x7f800000u;
var<private> wt_nan_bits: u32 = 0x7fc00000u;
fn wt_inf() -> f32 { return bitcast<f32>(wt_inf_bits); }
fn wt_nan() -> f32 { return bitcast<f32>(wt_nan_bits); }
fn wt_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn wt_isinf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }

// max/min that propagate NaN like torch.maximum/torch.minimum.
fn wt_max(a: f32, b: f32) -> f32 { if (wt_isnan(a) || wt_isnan(b)) { return wt_nan(); } return max(a, b); }
fn wt_min(a: f32, b: f32) -> f32 { if (wt_isnan(a) || wt_isnan(b)) { return wt_nan(); } return min(a, b); }

// relu from the bits alone: sign set and not -0 or NaN (0x80000001 ..= 0xff800000: negative numbers and
// -inf) gives 0; NaN and -0 pass, as torch.
fn wt_relu(x: f32) -> f32 {
  let bits = bitcast<u32>(x);
  if (bits > 0x80000000u && bits <= 0xff800000u) { return 0.0f; }
  return x;
}

// b c + a with one rounding where the driver fuses it (torch's kernels do): WGSL lets fma round b c
// first (lavapipe does), which overflows where the sum does not (3e38 - 2 * 3e38 is -3e38). A finite
// result then comes from the halves (exact: |b c| is far above the subnormals), doubled.
fn wt_fma(b: f32, c: f32, a: f32) -> f32 {
  let r = fma(b, c, a);
  if (!wt_isinf(r) || wt_isinf(a) || wt_isinf(b) || wt_isinf(c)) { return r; }
  return 2.0f * fma(wt_opaque(b * 0.5f), c, wt_opaque(a * 0.5f));
}

// NaN is tested first, from bits, in every helper: drivers such as SwiftShader compile
// float compares as if NaN could not occur (NaN > 88.7 came out true).

fn wt_sqrt(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x < 0.0f) { return wt_nan(); }
  if (wt_isinf(x)) { return x; }
  return sqrt(x);
}

fn wt_sigmoid(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x >= 0.0f) { return 1.0f / (1.0f + wt_exp(-x)); }
  let e = wt_exp(x);
  return e / (1.0f + e);
}

// erf and erfc: least-squares polynomials fitted for this file (float32 relative error under 1e-6
// over the whole range): erf(x) = x P(x^2) below 0.75; above, erfc(x) = e^(-x^2) Q(1/x) with x^2
// split (x = h + l, h of 12 bits: h^2 exact) so that e^(-x^2) keeps its precision up to x = 10.
fn wt_erfc_tail(a: f32) -> f32 {  // a >= 0.75
  let u = 1.0f / a;
  var q: f32;
  if (a < 2.5f) {
    q = (((((((((((3.291859894e-03f * u - 3.276073259e-02f) * u + 1.444608076e-01f) * u - 3.662249466e-01f) * u
        + 5.689036136e-01f) * u - 4.980007869e-01f) * u + 7.990158815e-02f) * u + 3.757939243e-01f) * u
        - 4.480866745e-01f) * u + 4.156619214e-02f) * u + 5.583846176e-01f) * u + 3.541134151e-04f);
  } else {
    q = (((((((((-4.845709497e-01f * u + 8.791287788e-01f) * u - 2.765168724e-01f) * u - 5.897199561e-01f) * u
        + 6.204279518e-01f) * u - 3.971419132e-02f) * u - 2.770082087e-01f) * u - 4.066684722e-04f) * u
        + 5.642081109e-01f) * u - 3.672591699e-07f);
  }
  let h = bitcast<f32>(bitcast<u32>(a) & 0xfffff000u);
  return wt_exp(-h * h) * wt_exp(-(a - h) * (a + h)) * q;
}
fn wt_erf(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  let a = abs(x);
  if (a < 0.75f) {
    let z = x * x;
    return x * ((((((9.557261058e-05f * z - 8.370658271e-04f) * z + 5.217598607e-03f) * z - 2.686498981e-02f) * z
                 + 1.128378127e-01f) * z - 3.761263856e-01f) * z + 1.128379167e+00f);
  }
  if (a > 10.0f) { return sign(x); }
  let r = 1.0f - wt_erfc_tail(a);
  return select(r, -r, x < 0.0f);
}
fn wt_erfc(x: f32) -> f32 {  // the tail itself above 0.75: 1 - erf(x) would cancel to 0
  if (wt_isnan(x)) { return x; }
  let a = abs(x);
  if (a < 0.75f) { return 1.0f - wt_erf(x); }
  if (a > 10.0f) { return select(0.0f, 2.0f, x < 0.0f); }
  let t = wt_erfc_tail(a);
  return select(t, 2.0f - t, x < 0.0f);
}

// Round half to even, like torch.round.
fn wt_round(x: f32) -> f32 {
  if (wt_isnan(x) || wt_isinf(x)) { return x; }
  var r = floor(x + 0.5f);
  if (r - x == 0.5f && (r - 2.0f * floor(r * 0.5f)) != 0.0f) { r = r - 1.0f; }
  if (r == 0.0f) { return bitcast<f32>(bitcast<u32>(x) & 0x80000000u); }  // a zero keeps x's sign (-0.4 -> -0)
  return r;
}

fn wt_gelu(x: f32) -> f32 {
  let g = 0.5f * x * (1.0f + wt_erf(x * 0.7071067811865476f));
  return select(g, 0.0f, (bitcast<u32>(g) & 0x7fffffffu) == 0u);  // a zero is +0 (torch's vectorised loop)
}

fn wt_sign(x: f32) -> f32 { if (wt_isnan(x)) { return 0.0f; } return sign(x); }  // torch: sign(nan) = 0

// Signed integer remainder as a - (a / b) * b, never WGSL's `%` on signed operands: naga (wgpu-native) on
// NVIDIA's Vulkan driver returned a itself for a negative divisor (-19 % -5 gave -19: remainder, fmod,
// floor division and the negative-index wrap of advanced indexing were wrong there; Tint polyfills `%` the
// same way). b != 0 here; i32::MIN / -1 is i32::MIN in WGSL, so the remainder is 0 as it should be.
fn wt_irem(a: i32, b: i32) -> i32 { return a - (a / b) * b; }
fn wt_remainder_i(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let m = wt_irem(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) { return m + b; }
  return m;
}
fn wt_fmod_i(a: i32, b: i32) -> i32 { if (b == 0) { return 0; } return wt_irem(a, b); }
fn wt_floordiv_i(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let q = a / b;
  if ((a - q * b != 0) && ((a < 0) != (b < 0))) { return q - 1; }
  return q;
}

// a / b for a divisor of any size. Vulkan lets a driver's f32 division be a reciprocal times the dividend
// (2.5 ULP; NVIDIA's is): for |b| > 2^126 the reciprocal is subnormal, flushed to zero, and a / b came out
// 0 (-2.1e37 / 1.7e38 gave -0, torch -0.125). Such a divisor is scaled by 1/4 first (exact both ways).
// The quotient may still be a ULP from IEEE's there (docs/support.md, "Numbers on real GPUs").
fn wt_div(a: f32, b: f32) -> f32 {
  let s = select(1.0f, 0.25f, abs(b) > 8.507059e37f);
  let x = a * s;
  let y = b * s;
  return x / y;
}

fn wt_pow(a: f32, b: f32) -> f32 {
  if (b == 0.0f) { return 1.0f; }
  if (a == 1.0f) { return 1.0f; }
  if (wt_isnan(a) || wt_isnan(b)) { return wt_nan(); }
  if (b == 1.0f) { return a; }
  if (b == 2.0f) { return a * a; }
  if (b == 0.5f && a != 0.0f && !wt_isinf(a)) { return wt_sqrt(a); }  // pow(-0, 0.5) is +0, sqrt(-0) -0; pow(-inf, 0.5) +inf
  let ab = abs(a);
  if (a == 0.0f) {
    if (b < 0.0f) {
      if (fract(b * 0.5f) == 0.5f) { return sign(bitcast<f32>(bitcast<u32>(a) | 0x3f800000u)) * wt_inf(); }
      return wt_inf();
    }
    if (fract(b * 0.5f) == 0.5f) { return a; }
    return 0.0f;
  }
  if (wt_isinf(b)) {
    if (ab == 1.0f) { return 1.0f; }
    if ((ab > 1.0f) == (b > 0.0f)) { return wt_inf(); }
    return 0.0f;
  }
  let odd = fract(b * 0.5f) == 0.5f;
  if (wt_isinf(a)) {  // (-inf)^b: inf or 0, negative for an odd integer b
    let r = select(0.0f, wt_inf(), b > 0.0f);
    return select(r, -r, a < 0.0f && odd);
  }
  if (a < 0.0f && floor(b) != b) { return wt_nan(); }
  var r: f32;
  if (abs(b) < 1e30f) {
    // e^(b log|a|) with b log|a| carried as hi + lo: its rounding (up to half an ulp of 88, 4e-6)
    // would otherwise go straight into the result's relative error
    let l = wt_log_hi_lo(ab);
    let p = wt_two_prod(b, l.x);
    if (abs(p.x) > 104.0f) {
      r = wt_exp(p.x);  // 0 or inf
    } else {
      let t = wt_two_sum(p.x, p.y + b * l.y);
      let e = wt_exp(t.x);
      r = select(e + e * t.y, e, wt_isinf(e));
    }
  } else {  // |b log|a|| is huge unless |a| is 1 (handled above): 0 or inf either way
    r = wt_exp(b * wt_log(ab));
  }
  if (floor(b) == b && abs(b) <= 65536.0f && abs(r) > 1e-30f && abs(r) < 1e34f) {
    r = wt_pow_int(ab, i32(b));  // correctly rounded: 3^6 is 729 (e^(6 log 3) is 729.00006), as torch
  }
  return select(r, -r, a < 0.0f && odd);
}
// a^n for an integer n (0 < |n| <= 65536) by repeated squaring in two floats (hi + lo, each product
// error-free up to 2^-44), rounded once at the end. The caller keeps |a^n| in [1e-30, 1e34], so no
// intermediate overflows (nor does wt_split's 4097 x) and the lo parts stay normal.
fn wt_pow_int(a: f32, n: i32) -> f32 {
  var base = vec2<f32>(a, 0.0f);
  if (n < 0) {  // 1/a as hi + lo: q a = 1 + err exactly, so 1/a = q - err q
    let q = 1.0f / a;
    let e = wt_two_prod(q, a);
    base = vec2<f32>(q, -((e.x - 1.0f) + e.y) * q);
  }
  var r = vec2<f32>(1.0f, 0.0f);
  var k = u32(abs(n));
  loop {
    if ((k & 1u) != 0u) { r = wt_mul_hi_lo(r, base); }
    k = k >> 1u;
    if (k == 0u) { break; }
    base = wt_mul_hi_lo(base, base);
  }
  return r.x + r.y;
}
fn wt_mul_hi_lo(x: vec2<f32>, y: vec2<f32>) -> vec2<f32> {
  let p = wt_two_prod(x.x, y.x);
  return wt_two_sum(p.x, p.y + (x.x * y.y + x.y * y.x));
}
// Error-free transformations: a + b = s + err (Knuth's two-sum), a * b = p + err (Dekker's product
// with Veltkamp's split; every partial product is exact, so a fused multiply-add changes nothing).
// A value the shader compiler cannot see through (v itself; a NaN gets its low bit set), so that
// it cannot simplify (a + b) - a to b and drop the rounding error these steps recover.
fn wt_opaque(v: f32) -> f32 { return bitcast<f32>(bitcast<u32>(v) | u32(wt_isnan(v))); }
fn wt_two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = wt_opaque(a + b);
  let bb = s - a;
  return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}
fn wt_split(a: f32) -> vec2<f32> {
  let c = wt_opaque(4097.0f * a);
  let hi = c - (c - a);
  return vec2<f32>(hi, a - hi);
}
fn wt_two_prod(a: f32, b: f32) -> vec2<f32> {
  let p = wt_opaque(a * b);
  let x = wt_split(a);
  let y = wt_split(b);
  return vec2<f32>(p, ((x.x * y.x - p) + x.x * y.y + x.y * y.x) + x.y * y.y);
}
// log(x) for finite x > 0 as hi + lo: wt_log's reduction and polynomial, with its large terms
// (e C1, m, m^2 / 2) summed without rounding.
fn wt_log_hi_lo(x: f32) -> vec2<f32> {
  let r = wt_log_reduce(x);
  let m = r.x;
  let fe = r.y;
  let z = wt_two_prod(m, m);
  let small = wt_log_poly(m, z.x) - 0.5f * z.y - 2.12194440e-4f * fe;
  let s1 = wt_two_sum(0.693359375f * fe, m);
  let s2 = wt_two_sum(s1.x, -0.5f * z.x);
  return wt_two_sum(s2.x, (s2.y + s1.y) + small);
}
fn wt_pow_i(a: i32, b: i32) -> i32 {
  if (b < 0) { if (a == 1) { return 1; } if (a == -1) { if ((b & 1) == 0) { return 1; } return -1; } return 0; }
  var result = 1;
  var base = a;
  var e = b;
  loop {
    if (e == 0) { break; }
    if ((e & 1) != 0) { result = result * base; }
    base = base * base;
    e = e >> 1u;
  }
  return result;
}

// 2^x = 2^n e^(r ln2), r = x - n exact.
fn wt_exp2(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x >= 128.0f) { return wt_inf(); }
  if (x < -150.0f) { return 0.0f; }
  let n = floor(x + 0.5f);
  return wt_ldexp(wt_exp((x - n) * 0.6931471805599453f), i32(n));
}
// asin and acos through atan: the asin/acos builtins are only ~3e-4 accurate on lavapipe.
fn wt_asin(x: f32) -> f32 {
  if (wt_isnan(x) || abs(x) > 1.0f) { return wt_nan(); }
  return wt_atan(x / sqrt((1.0f - x) * (1.0f + x)));
}
fn wt_acos(x: f32) -> f32 {
  if (wt_isnan(x) || abs(x) > 1.0f) { return wt_nan(); }
  return 2.0f * wt_atan(sqrt((1.0f - x) / (1.0f + x)));
}
// Inverse hyperbolics through log1p near 0, log(2|x|) where x * x would overflow.
fn wt_asinh(x: f32) -> f32 {
  if (x == 0.0f) { return x; }  // odd: -0 stays -0 (as torch)
  if (wt_isnan(x) || wt_isinf(x)) { return x; }
  let a = abs(x);
  if (a > 1e10f) { return sign(x) * (wt_log(a) + 0.6931471805599453f); }
  return sign(x) * wt_log1p(a + a * a / (1.0f + sqrt(1.0f + a * a)));
}
fn wt_acosh(x: f32) -> f32 {
  if (wt_isnan(x) || x < 1.0f) { return wt_nan(); }
  if (wt_isinf(x)) { return x; }
  if (x > 1e10f) { return wt_log(x) + 0.6931471805599453f; }
  let t = x - 1.0f;
  return wt_log1p(t + sqrt(2.0f * t + t * t));
}
// atanh of |x| (1 - |x| is exact near 1), as glibc: log1p(2a + 2a^2 / (1 - a)) / 2 below 1/2.
fn wt_atanh(x: f32) -> f32 {
  if (x == 0.0f) { return x; }  // odd: -0 stays -0 (as torch)
  if (wt_isnan(x) || abs(x) > 1.0f) { return wt_nan(); }
  if (abs(x) == 1.0f) { return sign(x) * wt_inf(); }
  let a = abs(x);
  var r: f32;
  if (a < 0.5f) {
    r = 0.5f * wt_log1p(2.0f * a + 2.0f * a * a / (1.0f - a));
  } else {
    r = 0.5f * wt_log1p(2.0f * a / (1.0f - a));
  }
  return select(r, -r, x < 0.0f);
}
fn wt_hypot(a: f32, b: f32) -> f32 {
  if (wt_isinf(a) || wt_isinf(b)) { return wt_inf(); }
  if (wt_isnan(a) || wt_isnan(b)) { return wt_nan(); }
  let m = max(abs(a), abs(b));
  if (m == 0.0f) { return 0.0f; }
  let r = min(abs(a), abs(b)) / m;
  return m * sqrt(1.0f + r * r);
}

// f32 rounded to the nearest bfloat16 (ties to even; NaN stays NaN): bfloat16 is stored as f32.
fn wt_bf16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return x; }
  return bitcast<f32>((b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u);
}

// f32 rounded to the nearest half (ties to even; beyond 65504 rounds to +-inf, NaN stays NaN), as
// an f32: float16 is stored as f32 where the adapter lacks "shader-f16". Halves below 2^-14 are
// subnormal (multiples of 2^-24): scaled by 2^24, round() (ties to even) is exact there.
fn wt_f16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  let a = b & 0x7fffffffu;
  if (a > 0x7f800000u) { return x; }
  let sign = b & 0x80000000u;
  if (a >= 0x477ff000u) { return bitcast<f32>(sign | 0x7f800000u); }
  if (a < 0x38800000u) {
    return bitcast<f32>(sign | bitcast<u32>(round(bitcast<f32>(a) * 16777216.0f) * 5.9604644775390625e-8f));
  }
  return bitcast<f32>(sign | ((a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u));
}

// exp, log, atan, tanh and the trigonometric functions are computed here with Cephes' float
// algorithms (range reduction plus polynomials) instead of the builtins: WGSL lets the builtins be
// off by many ulps (log by 2^-21 absolutely near 1, exp by 3 + 2|x| ulps, sin/cos by 2^-11 on
// SwiftShader), and PyTorch's float32 results are within about an ulp everywhere.

// exp(x) = 2^n exp(r), r = x - n ln2 in [-ln2/2, ln2/2] (ln2 in two parts, the first exact in n * C1).
fn wt_exp(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x > 88.72283905206835f) { return wt_inf(); }
  if (x < -103.972084f) { return 0.0f; }
  let n = floor(1.44269504088896341f * x + 0.5f);
  let r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  let z = r * r;
  let p = (((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r
           + 1.6666665459e-1f) * r + 5.0000001201e-1f) * z + r + 1.0f;
  return wt_ldexp(p, i32(n));
}
// p 2^k for p near 1, k in [-151, 128]: a subnormal result in two steps, 2^128 as 2 2^127.
fn wt_ldexp(p: f32, k: i32) -> f32 {
  if (k < -125) { return ldexp(ldexp(p, k + 64), -64); }
  if (k > 127) { return ldexp(p * 2.0f, k - 1); }
  return ldexp(p, k);
}

// log(x) = e ln2 + log(m), x = m 2^e with m in [sqrt(1/2), sqrt(2)); m and e from the bits, so
// subnormal inputs are exact even where the driver flushes subnormal arithmetic.
fn wt_log(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x == 0.0f) { return -wt_inf(); }
  if (x < 0.0f) { return wt_nan(); }
  if (wt_isinf(x)) { return x; }
  let r = wt_log_reduce(x);
  return wt_log_reduced(r.x, r.y);
}
// (m, e) with x = (1 + m) 2^e, 1 + m in [sqrt(1/2), sqrt(2)), for finite x > 0.
fn wt_log_reduce(x: f32) -> vec2<f32> {
  var bits = bitcast<u32>(x);
  var e = i32(bits >> 23u) - 126;
  if ((bits >> 23u) == 0u) {  // subnormal: normalise the mantissa
    let shift = countLeadingZeros(bits) - 8u;
    bits = bits << shift;
    e = e + 1 - i32(shift);
  }
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f000000u);  // in [0.5, 1)
  if (m < 0.707106781186547524f) { e = e - 1; m = m + m - 1.0f; } else { m = m - 1.0f; }
  return vec2<f32>(m, f32(e));
}
// log(1 + m) - m + m^2 / 2 (Cephes' polynomial) for m in [sqrt(1/2) - 1, sqrt(2) - 1], given z = m^2.
fn wt_log_poly(m: f32, z: f32) -> f32 {
  return ((((((((7.0376836292e-2f * m - 1.1514610310e-1f) * m + 1.1676998740e-1f) * m - 1.2420140846e-1f) * m
            + 1.4249322787e-1f) * m - 1.6668057665e-1f) * m + 2.0000714765e-1f) * m - 2.4999993993e-1f) * m
         + 3.3333331174e-1f) * m * z;
}
// log(1 + m) + e ln2 (ln2 in two parts, the first exact in e * C1).
fn wt_log_reduced(m: f32, e: f32) -> f32 {
  let z = m * m;
  var y = wt_log_poly(m, z);
  y = y - 2.12194440e-4f * e - 0.5f * z;
  return (m + y) + 0.693359375f * e;
}

// tanh: Cephes' odd polynomial below 0.625 (no cancellation near 0), 1 - 2 / (e^2|x| + 1) above.
fn wt_tanh(x: f32) -> f32 {
  if (x == 0.0f) { return x; }  // odd: -0 stays -0 (as torch)
  if (wt_isnan(x)) { return x; }
  let a = abs(x);
  if (a > 44.0f) { return sign(x); }
  if (a >= 0.625f) { return sign(x) * (1.0f - 2.0f / (wt_exp(2.0f * a) + 1.0f)); }
  let z = x * x;
  return ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z
          - 3.33332819422e-1f) * z * x + x;
}

// e^a / 2 for a up to 89.4 (beyond 88.7 e^a itself overflows): e^(a/2) * (e^(a/2) / 2).
fn wt_half_exp(a: f32) -> f32 { let h = wt_exp(0.5f * a); return h * (0.5f * h); }

// sinh and cosh of |x| (no cancellation for negative x), by expm1 below 1.
fn wt_sinh(x: f32) -> f32 {
  if (x == 0.0f) { return x; }  // odd: -0 stays -0 (as torch)
  if (wt_isnan(x)) { return x; }
  let a = abs(x);
  var s: f32;
  if (a < 1.0f) {
    let e = wt_expm1(a);
    s = 0.5f * (e + e / (e + 1.0f));
  } else if (a < 44.0f) {
    let e = wt_exp(a);
    s = 0.5f * e - 0.5f / e;
  } else {
    s = wt_half_exp(a);
  }
  return select(s, -s, x < 0.0f);
}
fn wt_cosh(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  let a = abs(x);
  if (a < 44.0f) { let e = wt_exp(a); return 0.5f * e + 0.5f / e; }
  return wt_half_exp(a);
}

// log(1 + x): where 1 + x is in [sqrt(1/2), sqrt(2)) log's own polynomial in x, unrounded (not
// Kahan's (1 + x) - 1 trick, which compilers may fold away); elsewhere the rounding of 1 + x costs
// at most an ulp of the result.
fn wt_log1p(x: f32) -> f32 {
  if (wt_isnan(x) || wt_isinf(x)) { return wt_log(1.0f + x); }
  if (x >= -0.2928932188134524f && x < 0.41421356237309503f) { return wt_log_reduced(x, 0.0f); }
  return wt_log(1.0f + x);
}
// exp(x) - 1 accurate near 0: a series below 0.01, above it Kahan's trick (u - 1 is exact for u
// near 1; the ratio first, so that large x cannot overflow).
fn wt_expm1(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x > 88.72283905206835f) { return wt_inf(); }
  if (x < -17.0f) { return -1.0f; }
  if (abs(x) < 0.01f) { return x * (1.0f + x * (0.5f + x * (0.16666667f + 0.041666668f * x))); }
  let u = wt_exp(x);
  if (u == 1.0f) { return x; }
  if (u - 1.0f == -1.0f) { return -1.0f; }
  return (u - 1.0f) * (x / wt_log(u));
}

// atan: Cephes' reduction to |x| <= tan(pi/8), then an odd polynomial.
fn wt_atan(x: f32) -> f32 {
  if (x == 0.0f) { return x; }  // odd: -0 stays -0 (as torch)
  if (wt_isnan(x)) { return x; }
  var a = abs(x);
  var base = 0.0f;
  if (a > 2.414213562373095f) {
    base = 1.5707963267948966f;
    a = -1.0f / a;
  } else if (a > 0.4142135623730950f) {
    base = 0.7853981633974483f;
    a = (a - 1.0f) / (a + 1.0f);
  }
  let z = a * a;
  let y = base + ((((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z
                   - 3.33329491539e-1f) * z * a + a);
  return select(y, -y, x < 0.0f);
}
fn wt_copysign(m: f32, s: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(m) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}
// atan2 with C's special cases (signed zeros, infinities); pi - a with pi in two parts.
fn wt_atan2(y: f32, x: f32) -> f32 {
  if (wt_isnan(y) || wt_isnan(x)) { return wt_nan(); }
  let x_negative = (bitcast<u32>(x) & 0x80000000u) != 0u;
  if (y == 0.0f) { return select(y, wt_copysign(3.141592653589793f, y), x_negative); }
  if (x == 0.0f) { return wt_copysign(1.5707963267948966f, y); }
  if (wt_isinf(x)) {
    if (wt_isinf(y)) { return wt_copysign(select(0.7853981633974483f, 2.356194490192345f, x_negative), y); }
    return select(wt_copysign(0.0f, y), wt_copysign(3.141592653589793f, y), x_negative);
  }
  if (wt_isinf(y)) { return wt_copysign(1.5707963267948966f, y); }
  var a = wt_atan(abs(y) / abs(x));
  if (x_negative) { a = (3.1415927410125732f - a) - 8.742278e-8f; }
  return wt_copysign(a, y);
}

// sin, cos, tan: the argument reduced to r in [-pi/4, pi/4] and its quadrant q, then Cephes'
// polynomials (sinf.c/cosf.c). Below 8192 Cody-Waite (pi/4 in three parts, exact products);
// above, Payne-Hanek: the 24-bit mantissa times 192 bits of 2/pi in exact 32-bit pieces, so that
// sin(1e10) or cos(3e38) are right to float precision like PyTorch's.
fn wt_sin_poly(x: f32, z: f32) -> f32 {
  return ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * x + x;
}
fn wt_cos_poly(z: f32) -> f32 {
  return ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
}
// m * w as (low, high) words (m < 2^24; WGSL has no 64-bit product): four exact 12x16-bit products.
fn wt_mul_24x32(m: u32, w: u32) -> vec2<u32> {
  let mh = m >> 12u;
  let ml = m & 0xfffu;
  let wh = w >> 16u;
  let wl = w & 0xffffu;
  var lo = ml * wl;
  var hi = 0u;
  var t = (ml * wh) << 16u;
  lo = lo + t;
  hi = hi + ((ml * wh) >> 16u) + select(0u, 1u, lo < t);
  t = (mh * wl) << 12u;
  lo = lo + t;
  hi = hi + ((mh * wl) >> 20u) + select(0u, 1u, lo < t);
  t = (mh * wh) << 28u;
  lo = lo + t;
  hi = hi + ((mh * wh) >> 4u) + select(0u, 1u, lo < t);
  return vec2<u32>(lo, hi);
}
fn wt_bits32(p: ptr<function, array<u32, 8>>, pos: u32) -> u32 {
  let w = pos >> 5u;
  let sh = pos & 31u;
  if (sh == 0u) { return (*p)[w]; }
  return ((*p)[w] >> sh) | ((*p)[w + 1u] << (32u - sh));
}
fn wt_reduce_large(x: f32) -> vec2<f32> {
  var two_over_pi = array<u32, 6>(0x3c439041u, 0xdb629599u, 0xf534ddc0u, 0xfc2757d1u, 0x4e441529u, 0xa2f9836eu);
  let u = bitcast<u32>(x);
  let m = (u & 0x7fffffu) | 0x800000u;
  let e = i32((u >> 23u) & 0xffu) - 150;  // x = m 2^e
  var p = array<u32, 8>(0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  var carry = 0u;
  for (var i = 0u; i < 6u; i = i + 1u) {
    let prod = wt_mul_24x32(m, two_over_pi[i]);
    let s = prod.x + carry;
    p[i] = s;
    carry = prod.y + select(0u, 1u, s < prod.x);
  }
  p[6] = carry;
  let top = u32(193 - e);  // the bit of p worth 2 (x 2/pi = p 2^(e - 192))
  var hi = wt_bits32(&p, top - 31u);
  var lo = wt_bits32(&p, top - 63u);
  var q = hi >> 30u;
  hi = (hi << 2u) | (lo >> 30u);
  lo = lo << 2u;
  var flip = false;
  if (hi >= 0x80000000u) {  // fraction >= 1/2: the next quadrant, minus the rest
    q = q + 1u;
    hi = ~hi;
    lo = 0u - lo;
    if (lo == 0u) { hi = hi + 1u; }
    flip = true;
  }
  let frac = (f32(hi) + f32(lo) * 2.3283064365386963e-10f) * 2.3283064365386963e-10f;
  let r = frac * 1.5707963705062866f - frac * 4.371139000186243e-08f;
  return vec2<f32>(select(r, -r, flip), f32(q & 3u));
}
fn wt_reduce(ax: f32) -> vec2<f32> {
  if (ax >= 8192.0f) { return wt_reduce_large(ax); }
  var j = u32(ax * 1.27323954473516f);
  var y = f32(j);
  if ((j & 1u) != 0u) { j = j + 1u; y = y + 1.0f; }
  let r = ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  return vec2<f32>(r, f32((j >> 1u) & 3u));
}
fn wt_sin(x: f32) -> f32 {
  if (x == 0.0f) { return x; }  // odd: -0 stays -0 (as torch)
  if (wt_isnan(x) || wt_isinf(x)) { return wt_nan(); }
  let red = wt_reduce(abs(x));
  let q = u32(red.y);
  let z = red.x * red.x;
  var y = select(wt_sin_poly(red.x, z), wt_cos_poly(z), (q & 1u) != 0u);
  if (q >= 2u) { y = -y; }
  return select(y, -y, x < 0.0f);
}
fn wt_cos(x: f32) -> f32 {
  if (wt_isnan(x) || wt_isinf(x)) { return wt_nan(); }
  let red = wt_reduce(abs(x));
  let q = u32(red.y);
  let z = red.x * red.x;
  let y = select(wt_cos_poly(z), wt_sin_poly(red.x, z), (q & 1u) != 0u);
  return select(y, -y, q == 1u || q == 2u);
}
fn wt_tan(x: f32) -> f32 {
  if (x == 0.0f) { return x; }  // odd: -0 stays -0 (as torch)
  if (wt_isnan(x) || wt_isinf(x)) { return wt_nan(); }
  let red = wt_reduce(abs(x));
  let z = red.x * red.x;
  let s = wt_sin_poly(red.x, z);
  let c = wt_cos_poly(z);
  let t = select(s / c, -c / s, (u32(red.y) & 1u) != 0u);
  return select(t, -t, x < 0.0f);
}

// fmod exactly (C's fmodf, as PyTorch): long division of the integer mantissas, one bit a step.
fn wt_fmod(x: f32, y: f32) -> f32 {
  if (wt_isnan(x) || wt_isnan(y) || wt_isinf(x) || y == 0.0f) { return wt_nan(); }
  if (wt_isinf(y)) { return x; }
  let ux = bitcast<u32>(x);
  let sx = ux & 0x80000000u;
  let ax = ux & 0x7fffffffu;
  let ay = bitcast<u32>(y) & 0x7fffffffu;
  if (ax < ay) { return x; }
  if (ax == ay) { return bitcast<f32>(sx); }
  var ex = i32(ax >> 23u);
  var ey = i32(ay >> 23u);
  var mx: u32;
  var my: u32;
  if (ex == 0) {  // subnormal: normalise the mantissa
    let s = countLeadingZeros(ax) - 8u;
    mx = ax << s;
    ex = 1 - i32(s);
  } else {
    mx = (ax & 0x7fffffu) | 0x800000u;
  }
  if (ey == 0) {
    let s = countLeadingZeros(ay) - 8u;
    my = ay << s;
    ey = 1 - i32(s);
  } else {
    my = (ay & 0x7fffffu) | 0x800000u;
  }
  loop {
    if (mx >= my) {
      mx = mx - my;
      if (mx == 0u) { return bitcast<f32>(sx); }
    }
    if (ex <= ey) { break; }
    mx = mx << 1u;
    ex = ex - 1;
  }
  let s = countLeadingZeros(mx) - 8u;
  mx = mx << s;
  ex = ex - i32(s);
  if (ex > 0) { return bitcast<f32>(sx | (u32(ex) << 23u) | (mx & 0x7fffffu)); }
  return bitcast<f32>(sx | (mx >> u32(1 - ex)));
}
// Python-style remainder (the sign of the divisor) and floor division, as PyTorch: from fmod.
fn wt_remainder(a: f32, b: f32) -> f32 {
  var m = wt_fmod(a, b);
  if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) { m = m + b; }
  return m;
}
fn wt_floordiv(a: f32, b: f32) -> f32 {
  if (b == 0.0f || wt_isnan(a) || wt_isnan(b)) { return a / b; }
  if (wt_isinf(a)) { return wt_nan(); }
  let m = wt_fmod(a, b);
  var d = (a - m) / b;
  if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) { d = d - 1.0f; }
  if (d == 0.0f) { return wt_copysign(0.0f, a / b); }
  var f = floor(d);
  if (d - f > 0.5f) { f = f + 1.0f; }
  return f;
}

// -- special functions (issue 14) -------------------------------------------------------------
// log(e^a + e^b), exact for equal infinities; the combine of logcumsumexp's scan.
fn wt_logaddexp(a: f32, b: f32) -> f32 {
  if (wt_isnan(a) || wt_isnan(b)) { return wt_nan(); }
  let m = max(a, b);
  if (wt_isinf(m) && a == b) { return m; }
  return m + wt_log1p(wt_exp(-abs(a - b)));
}

// erfinv: Giles' single-precision polynomials, then one Newton step on erf.
fn wt_erfinv(x: f32) -> f32 {
  if (wt_isnan(x) || abs(x) > 1.0f) { return wt_nan(); }
  if (abs(x) == 1.0f) { return x * wt_inf(); }
  var w = -log((1.0f - x) * (1.0f + x));
  var p: f32;
  if (w < 5.0f) {
    w = w - 2.5f;
    p = 2.81022636e-08f;
    p = 3.43273939e-07f + p * w; p = -3.5233877e-06f + p * w; p = -4.39150654e-06f + p * w;
    p = 0.00021858087f + p * w; p = -0.00125372503f + p * w; p = -0.00417768164f + p * w;
    p = 0.246640727f + p * w; p = 1.50140941f + p * w;
  } else {
    w = sqrt(w) - 3.0f;
    p = -0.000200214257f;
    p = 0.000100950558f + p * w; p = 0.00134934322f + p * w; p = -0.00367342844f + p * w;
    p = 0.00573950773f + p * w; p = -0.0076224613f + p * w; p = 0.00943887047f + p * w;
    p = 1.00167406f + p * w; p = 2.83297682f + p * w;
  }
  let y = p * x;
  return y - (wt_erf(y) - x) / (1.1283791670955126f * exp(-y * y));
}

// lgamma: Stirling's series from 8 up (smaller arguments shifted up), reflection below 0.5.
fn wt_lgamma_pos(x: f32) -> f32 {
  var y = x;
  var shift = 1.0f;
  while (y < 8.0f) { shift = shift * y; y = y + 1.0f; }
  let r = 1.0f / y;
  let r2 = r * r;
  let series = r * (0.083333333f - r2 * (0.0027777778f - r2 * 0.00079365079f));
  return (y - 0.5f) * log(y) - y + 0.91893853f + series - log(shift);
}
fn wt_lgamma(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (wt_isinf(x)) { return wt_inf(); }
  if (x <= 0.0f && floor(x) == x) { return wt_inf(); }
  let ax = bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu);  // |x| from the bits: a subnormal stays one
  if (ax < 1e-10f) { return -wt_log(ax); }  // -log|x| - 0.577 x: the second term is below an ulp (and pi x may flush)
  // reflection; |sin(pi x)| has period 1, so x is reduced exactly first: near a pole the rounding
  // of pi * x would be magnified
  if (x < 0.5f) { return log(3.14159265f / abs(wt_sin(3.14159265f * (x - round(x))))) - wt_lgamma_pos(1.0f - x); }
  return wt_lgamma_pos(x);
}

// digamma: the recurrence up to 6, then the asymptotic series; reflection for negatives.
fn wt_digamma_pos(x: f32) -> f32 {
  var y = x;
  var acc = 0.0f;
  while (y < 6.0f) { acc = acc - 1.0f / y; y = y + 1.0f; }
  let r2 = 1.0f / (y * y);
  return acc + log(y) - 0.5f / y - r2 * (0.083333333f - r2 * (0.0083333333f - r2 * (0.0039682540f -
         r2 * 0.0041666667f)));
}
fn wt_digamma(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  // torch: -inf at +0, inf at -0 (by the sign bit: a subnormal that the GPU flushes keeps its side)
  if (x == 0.0f) { return select(-wt_inf(), wt_inf(), (bitcast<u32>(x) & 0x80000000u) != 0u); }
  if (x < 0.0f && floor(x) == x) { return wt_nan(); }
  if (wt_isinf(x)) { return select(wt_nan(), x, x > 0.0f); }
  // reflection; tan has period pi, so pi x is reduced exactly first (x - round(x)): near a pole
  // the rounding of pi * x would be magnified by the pole
  if (x < 0.0f) { return wt_digamma_pos(1.0f - x) - 3.14159265f / wt_tan(3.14159265f * (x - round(x))); }
  return wt_digamma_pos(x);
}

// Modified Bessel functions I0 and I1 (Abramowitz & Stegun 9.8.1-9.8.4, error < 2e-7).
fn wt_bessel_scale(ax: f32) -> f32 {  // e^ax / sqrt(ax), in two halves so it overflows late
  let h = wt_exp(0.5f * ax);
  return h * (h / sqrt(ax));
}
fn wt_i0(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (abs(x) > 88.72283905206835f) { return select(wt_inf(), wt_nan(), wt_isinf(x)); }  // torch's e^|x| overflows first
  let ax = abs(x);
  if (ax <= 3.75f) {
    let t = (x / 3.75f) * (x / 3.75f);
    return 1.0f + t * (3.5156229f + t * (3.0899424f + t * (1.2067492f + t * (0.2659732f + t * (0.0360768f +
           t * 0.0045813f)))));
  }
  let t = 3.75f / ax;
  return wt_bessel_scale(ax) * (0.39894228f + t * (0.01328592f + t * (0.00225319f + t * (-0.00157565f + t *
         (0.00916281f + t * (-0.02057706f + t * (0.02635537f + t * (-0.01647633f + t * 0.00392377f))))))));
}
fn wt_i1(x: f32) -> f32 {
  if (x == 0.0f) { return 0.0f; }  // torch: +0 at either zero
  if (wt_isnan(x)) { return x; }
  if (abs(x) > 88.72283905206835f) { return select(wt_inf(), wt_nan(), wt_isinf(x)) * sign(x); }  // torch's e^|x| overflows first
  let ax = abs(x);
  if (ax <= 3.75f) {
    let t = (x / 3.75f) * (x / 3.75f);
    return x * (0.5f + t * (0.87890594f + t * (0.51498869f + t * (0.15084934f + t * (0.02658733f + t *
           (0.00301532f + t * 0.00032411f))))));
  }
  let t = 3.75f / ax;
  let v = wt_bessel_scale(ax) * (0.39894228f + t * (-0.03988024f + t * (-0.00362018f + t * (0.00163801f + t *
          (-0.01031555f + t * (0.02282967f + t * (-0.02895312f + t * (0.01787654f - t * 0.00420059f))))))));
  return select(v, -v, x < 0.0f);
}

// The float32 next to a in b's direction (bits +-1; from 0 the smallest subnormal).
fn wt_nextafter(a: f32, b: f32) -> f32 {
  if (wt_isnan(a) || wt_isnan(b)) { return wt_nan(); }
  if (a == b) { return b; }
  if (a == 0.0f) { return select(bitcast<f32>(0x80000001u), bitcast<f32>(1u), b > 0.0f); }
  let bits = bitcast<i32>(a);
  return bitcast<f32>(select(bits - 1, bits + 1, (a < b) == (a > 0.0f)));
}

fn wt_gcd(a_in: i32, b_in: i32) -> i32 {
  var a = abs(a_in);
  var b = abs(b_in);
  loop {
    if (b == 0) { break; }
    let t = wt_irem(a, b);
    a = b;
    b = t;
  }
  return a;
}

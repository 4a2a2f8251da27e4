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

// NaN is tested first, from bits, in every helper: drivers such as SwiftShader compile
// float compares as if NaN could not occur (NaN > 88.7 came out true).

// exp that saturates cleanly: some drivers return NaN for exp of large arguments.
fn wt_exp(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x > 88.72284f) { return wt_inf(); }
  if (x < -103.97208f) { return 0.0f; }
  return exp(x);
}

fn wt_log(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x == 0.0f) { return -wt_inf(); }
  if (x < 0.0f) { return wt_nan(); }
  if (wt_isinf(x)) { return x; }
  return log(x);
}

fn wt_sqrt(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x < 0.0f) { return wt_nan(); }
  if (wt_isinf(x)) { return x; }
  return sqrt(x);
}

// tanh from exp of a non-positive argument: stable for every input, exact at the limits.
fn wt_tanh(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  let e = exp(-2.0f * abs(x));
  return sign(x) * (1.0f - e) / (1.0f + e);
}

fn wt_sigmoid(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x >= 0.0f) { return 1.0f / (1.0f + wt_exp(-x)); }
  let e = wt_exp(x);
  return e / (1.0f + e);
}

// erf as a rational approximation on [-4, 4] (Eigen's float erf), error ~1e-7.
fn wt_erf(x_in: f32) -> f32 {
  if (wt_isnan(x_in)) { return x_in; }
  let x = clamp(x_in, -4.0f, 4.0f);
  let x2 = x * x;
  var p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 - 2.10102402082508e-06f;
  p = p * x2 - 5.69250639462346e-05f;
  p = p * x2 - 7.34990630326855e-04f;
  p = p * x2 - 2.95459980854025e-03f;
  p = p * x2 - 1.60960333262415e-02f;
  var q = -1.45660718464996e-05f;
  q = q * x2 - 2.13374055278905e-04f;
  q = q * x2 - 1.68282697438203e-03f;
  q = q * x2 - 7.37332916720468e-03f;
  q = q * x2 - 1.42647390514189e-02f;
  return x * p / q;
}

// sin and cos with Cephes' range reduction and polynomials (sinf.c/cosf.c): the builtins are
// only 2^-11 accurate on some drivers (SwiftShader). Accurate to float precision for |x| < 8192.
fn wt_sin_poly(x: f32, z: f32) -> f32 {
  return ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * x + x;
}
fn wt_cos_poly(z: f32) -> f32 {
  return ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
}
// Returns the reduced argument and the octant j (0..7) of |x|.
fn wt_reduce(ax: f32) -> vec2<f32> {
  var j = u32(ax * 1.27323954473516f);
  var y = f32(j);
  if ((j & 1u) != 0u) { j = j + 1u; y = y + 1.0f; }
  j = j & 7u;
  let r = ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  return vec2<f32>(r, f32(j));
}
fn wt_sin(x: f32) -> f32 {
  if (wt_isnan(x) || wt_isinf(x)) { return wt_nan(); }
  let red = wt_reduce(abs(x));
  var j = u32(red.y);
  var negative = x < 0.0f;
  if (j > 3u) { negative = !negative; j = j - 4u; }
  let z = red.x * red.x;
  var y: f32;
  if (j == 1u || j == 2u) { y = wt_cos_poly(z); } else { y = wt_sin_poly(red.x, z); }
  return select(y, -y, negative);
}
fn wt_cos(x: f32) -> f32 {
  if (wt_isnan(x) || wt_isinf(x)) { return wt_nan(); }
  let red = wt_reduce(abs(x));
  var j = u32(red.y);
  var negative = false;
  if (j > 3u) { negative = true; j = j - 4u; }
  if (j > 1u) { negative = !negative; }
  let z = red.x * red.x;
  var y: f32;
  if (j == 1u || j == 2u) { y = wt_sin_poly(red.x, z); } else { y = wt_cos_poly(z); }
  return select(y, -y, negative);
}

// Round half to even, like torch.round.
fn wt_round(x: f32) -> f32 {
  if (wt_isnan(x) || wt_isinf(x)) { return x; }
  let r = floor(x + 0.5f);
  if (r - x == 0.5f && (r - 2.0f * floor(r * 0.5f)) != 0.0f) { return r - 1.0f; }
  return r;
}

fn wt_sign(x: f32) -> f32 { if (wt_isnan(x)) { return 0.0f; } return sign(x); }  // torch: sign(nan) = 0

// Python-style remainder: the result takes the sign of the divisor.
fn wt_remainder(a: f32, b: f32) -> f32 {
  if (wt_isinf(b) && !wt_isinf(a) && !wt_isnan(a)) {
    if (a == 0.0f || (a > 0.0f) == (b > 0.0f)) { return a; }
    return b;
  }
  let m = a - b * floor(a / b);
  return m;
}
fn wt_remainder_i(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) { return m + b; }
  return m;
}
fn wt_fmod(a: f32, b: f32) -> f32 {
  if (wt_isinf(b) && !wt_isinf(a)) { return a; }
  return a - b * trunc(a / b);
}
fn wt_fmod_i(a: i32, b: i32) -> i32 { if (b == 0) { return 0; } return a % b; }
fn wt_floordiv_i(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  let q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) { return q - 1; }
  return q;
}

fn wt_pow(a: f32, b: f32) -> f32 {
  if (b == 0.0f) { return 1.0f; }
  if (a == 1.0f) { return 1.0f; }
  if (wt_isnan(a) || wt_isnan(b)) { return wt_nan(); }
  if (b == 1.0f) { return a; }
  if (b == 2.0f) { return a * a; }
  if (b == 0.5f) { return wt_sqrt(a); }
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
  let is_int = floor(b) == b;
  if (a < 0.0f && !is_int) { return wt_nan(); }
  var r: f32;
  if (wt_isinf(a)) {
    if (b > 0.0f) { r = wt_inf(); } else { r = 0.0f; }
  } else {
    r = wt_exp(b * log(ab));
  }
  if (a < 0.0f && fract(b * 0.5f) == 0.5f) { return -r; }
  return r;
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

// log(1 + x) and exp(x) - 1 accurate near 0: a series below 0.01 (the builtins' absolute error
// is too large there on some drivers), above it Kahan's tricks (the rounding error of 1 + x cancels).
fn wt_log1p(x: f32) -> f32 {
  if (wt_isnan(x) || wt_isinf(x)) { return wt_log(1.0f + x); }
  if (abs(x) < 0.01f) { return x * (1.0f - x * (0.5f - x * (0.33333333f - 0.25f * x))); }
  let u = 1.0f + x;
  if (u == 1.0f) { return x; }
  return wt_log(u) * x / (u - 1.0f);
}
fn wt_expm1(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x > 88.72284f) { return wt_inf(); }
  if (x < -17.0f) { return -1.0f; }
  if (abs(x) < 0.01f) { return x * (1.0f + x * (0.5f + x * (0.16666667f + 0.041666668f * x))); }
  let u = exp(x);
  if (u == 1.0f) { return x; }
  if (u - 1.0f == -1.0f) { return -1.0f; }
  return (u - 1.0f) * x / log(u);
}
fn wt_exp2(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (x >= 128.0f) { return wt_inf(); }
  if (x < -150.0f) { return 0.0f; }
  return exp2(x);
}
fn wt_tan(x: f32) -> f32 { return wt_sin(x) / wt_cos(x); }
// asin and acos through atan: the asin/acos builtins are only ~3e-4 accurate on lavapipe.
fn wt_asin(x: f32) -> f32 {
  if (wt_isnan(x) || abs(x) > 1.0f) { return wt_nan(); }
  return wt_atan(x / sqrt((1.0f - x) * (1.0f + x)));
}
fn wt_acos(x: f32) -> f32 {
  if (wt_isnan(x) || abs(x) > 1.0f) { return wt_nan(); }
  return 2.0f * wt_atan(sqrt((1.0f - x) / (1.0f + x)));
}
fn wt_atan(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (wt_isinf(x)) { return sign(x) * 1.5707963267948966f; }
  return atan(x);
}
fn wt_atan2(y: f32, x: f32) -> f32 { if (wt_isnan(y) || wt_isnan(x)) { return wt_nan(); } return atan2(y, x); }
fn wt_sinh(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  if (abs(x) > 20.0f) { return sign(x) * 0.5f * wt_exp(abs(x)); }
  let e = wt_expm1(x);
  return 0.5f * (e + e / (e + 1.0f));
}
fn wt_cosh(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
  let e = wt_exp(abs(x));
  return 0.5f * e + 0.5f / e;
}
// Inverse hyperbolics through log1p near 0, log(2|x|) where x * x would overflow.
fn wt_asinh(x: f32) -> f32 {
  if (wt_isnan(x) || wt_isinf(x)) { return x; }
  let a = abs(x);
  if (a > 1e10f) { return sign(x) * (log(a) + 0.6931471805599453f); }
  return sign(x) * wt_log1p(a + a * a / (1.0f + sqrt(1.0f + a * a)));
}
fn wt_acosh(x: f32) -> f32 {
  if (wt_isnan(x) || x < 1.0f) { return wt_nan(); }
  if (wt_isinf(x)) { return x; }
  if (x > 1e10f) { return log(x) + 0.6931471805599453f; }
  let t = x - 1.0f;
  return wt_log1p(t + sqrt(2.0f * t + t * t));
}
fn wt_atanh(x: f32) -> f32 {
  if (wt_isnan(x) || abs(x) > 1.0f) { return wt_nan(); }
  if (abs(x) == 1.0f) { return sign(x) * wt_inf(); }
  return 0.5f * wt_log1p(2.0f * x / (1.0f - x));
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
  if (x < 0.5f) { return log(3.14159265f / abs(wt_sin(3.14159265f * x))) - wt_lgamma_pos(1.0f - x); }
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
  if (x == 0.0f) { return -wt_inf(); }  // torch's value at 0 (either sign)
  if (x < 0.0f && floor(x) == x) { return wt_nan(); }
  if (wt_isinf(x)) { return select(wt_nan(), x, x > 0.0f); }
  if (x < 0.0f) { return wt_digamma_pos(1.0f - x) - 3.14159265f / wt_tan(3.14159265f * x); }
  return wt_digamma_pos(x);
}

// Modified Bessel functions I0 and I1 (Abramowitz & Stegun 9.8.1-9.8.4, error < 2e-7).
fn wt_bessel_scale(ax: f32) -> f32 {  // e^ax / sqrt(ax), in two halves so it overflows late
  let h = wt_exp(0.5f * ax);
  return h * (h / sqrt(ax));
}
fn wt_i0(x: f32) -> f32 {
  if (wt_isnan(x)) { return x; }
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
  if (wt_isnan(x)) { return x; }
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
    let t = a % b;
    a = b;
    b = t;
  }
  return a;
}

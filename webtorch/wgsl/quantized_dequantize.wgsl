// A quantized layer's W (webtorch.ao.quantization) dequantized to the activations' dtype, out (N, K), for
// the float matmul of a prefill (many rows of x): one invocation per packed word, its PER elements of
// row n. int4: q * scale + zero of the word's group, in float32 then rounded to out's dtype as the
// layer's reference rounds it (q * scale is exact for a half or bfloat16 scale, so the sum is torch's
// mul-then-add); int8: q itself (the layer scales the product, as torchao does).
// params: N, K, words per row of W, group size (int4).
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$O>;
@group(0) @binding(2) var<storage, read> qdata: array<u32>;
$scale_bindings

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let N = params[0];
  let K = params[1];
  let W = params[2];
  let GS = params[3];
  let w = gid.x + gid.y * groups.x * 256u;
  if (w >= N * W) {
    return;
  }
  let n = w / W;
  let k0 = (w % W) * PER;
  let word = qdata[w];
  for (var i = 0u; i < PER; i = i + 1u) {
    let q = f32(bitcast<i32>(word << (32u - BITS - BITS * i)) >> (32u - BITS));
    if (k0 + i < K) {
      out[n * K + k0 + i] = wt_store($value);
    }
  }
}

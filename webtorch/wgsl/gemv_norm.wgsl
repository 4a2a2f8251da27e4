// A row's RMSNorm folded into the GEMV after it (quantized_gemv.wgsl; webtorch/hf/llama.py folds a decode
// step's norms into the projections that read them): every workgroup normalises its row of x (workgroup_id.y)
// itself into workgroup memory (xs, zeros past K), where the GEMV's x4 reads it, and no norm kernel runs
// (each workgroup reads the row again: from the cache, where a norm kernel would cost its launch and a wait).
// The arithmetic is layer_norm.wgsl's rms_norm with flags 1 | 4 | 8 (| 16) for the rows there are, lane
// for lane: that kernel's tpr lanes per row (lane l walks elements l, l + tpr, ...), its sum of squares in
// that order joined by row_join (row_threads.wgsl), its roundings (the normalised value rounded to $X,
// times the weight, rounded): the same values bit for bit. Flags 16 (residual): the row is x + residual,
// each sum rounded as an add stores it, and the workgroups of the first column block write it to sum_out
// (the residual stream after the add).
// params after the GEMV's ($P on): tpr, eps (f32 bits), the weight's offset, the residual's offset.
@group(0) @binding($weight_at) var<storage, read> norm_weight: array<$X>;
$residual_bindings
var<workgroup> xs: array<f32, $XS>;

// the row's element i (x's buffer index), as the norm kernel's load reads it
fn norm_load(i: u32) -> f32 {
$load
}

fn norm_row(lid: u32, wid: vec3<u32>) {
  let len = params[2];
  let base = params[5] + wid.y * len;
  let tpr = params[$P];
  let eps = bitcast<f32>(params[$P + 1u]);
  let weight = params[$P + 2u];
  var q = 0.0f;
  if (lid < tpr) {  // the row read once (xs holds it until normalised: each lane reads back its own elements)
    for (var r = lid; r < len; r = r + tpr) {
      let v = norm_load(base + r);
      xs[r] = v;
      q = q + v * v;
$store_sum
    }
  }
  let rstd = 1.0f / sqrt(row_join(0.0f, q, lid, tpr, 1u).y / f32(len) + eps);
  if (lid < tpr) {
    for (var r = lid; r < len; r = r + tpr) {
      xs[r] = f32(wt_store(f32(wt_store(xs[r] * rstd)) * f32(norm_weight[weight + r])));
    }
  }
  for (var r = len + lid; r < ${XS}u; r = r + 256u) { xs[r] = 0.0f; }
  workgroupBarrier();
}

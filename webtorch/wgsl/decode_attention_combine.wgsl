// The second half of a decode step's attention split over the cache's rows (decode_attention.wgsl's
// CHUNK rows per workgroup): per workgroup one query head of one batch row, invocation d its output
// element. Its chunks' partials (max score m_c, sum of exp(score - m_c) l_c, sum of exp(score - m_c) v_t
// p_c, in f32) join as softmax's: out = sum_c exp(m_c - m) p_c / sum_c exp(m_c - m) l_c over the chunks
// holding rows 0 ..= position (those past it stored nothing), m their largest max; rounded once to $S.
// partials: per (batch row, head, chunk) D sums, then m_c, then l_c. params: heads, chunks.
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<$S>;
@group(0) @binding(2) var<storage, read> partials: array<f32>;
@group(0) @binding(3) var<storage, read> position: array<f32>;

const D = ${D}u;
const CHUNK = ${CHUNK}u;

@compute @workgroup_size(${D})
fn main(@builtin(local_invocation_index) d: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let heads = params[0];
  let chunks = params[1];
  let row = wid.y * heads + wid.x;
  let first = row * chunks * (D + 2u);
  let filled = u32(position[0]) / CHUNK + 1u;
  var m = -wt_inf();
  for (var c = 0u; c < filled; c = c + 1u) { m = max(m, partials[first + c * (D + 2u) + D]); }
  var sum = 0.0f;
  var total = 0.0f;
  for (var c = 0u; c < filled; c = c + 1u) {
    let at = first + c * (D + 2u);
    let m_c = partials[at + D];
    if (m_c > -wt_inf()) {  // a chunk of -inf scores only adds nothing (exp(-inf - -inf) would be NaN)
      let f = wt_exp(m_c - m);
      sum = fma(f, partials[at + d], sum);
      total = fma(f, partials[at + D + 1u], total);
    }
  }
  out[row * D + d] = wt_store(sum / total);
}

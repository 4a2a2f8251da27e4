  // which row o this thread serves, as lane `lane` of the row's tpr threads (row_threads.wgsl), and the
  // row's layout (rows.wgsl): its elements at base + r * stride, its output at dst + r
  let rb = 5u + 2u * params[2];
  let stride = params[rb + 1u];
  let tpr = params[rb + 2u];
  let o = (wid.y * nwg.x + wid.x) * (WG / tpr) + lid / tpr;
  let lane = lid & (tpr - 1u);
  let row_len = params[1];
  let live = o < params[0];  // threads past the last row still take part in the barriers
  let base = element_offset(o, 0u);
  let dst = o * row_len;

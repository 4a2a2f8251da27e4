// Without subgroups: joins go through workgroup memory only (the shuffle steps, below SG_MIN = 1,
// never run).
const SG_MIN = 1u;

fn shuffle_xor_f32x2(v: vec2<f32>, mask: u32) -> vec2<f32> { return v; }
fn shuffle_xor_f32(v: f32, mask: u32) -> f32 { return v; }
fn shuffle_xor_i32(v: i32, mask: u32) -> i32 { return v; }
fn shuffle_xor_u32(v: u32, mask: u32) -> u32 { return v; }

// Joins of threads through subgroup shuffles (the adapter offers `subgroups`): row_threads.wgsl's
// row_join and reduce.wgsl's join_threads exchange partials between lanes lid and lid ^ mask, for
// masks below SG_MIN, without workgroup memory or barriers, then join wider through workgroup memory.
// SG_MIN is the adapter's smallest subgroup size: a run of SG_MIN consecutive invocations (aligned)
// lies in one subgroup, as GPUs lay out a 1-D workgroup's invocations.
// (The runtime prepends `enable subgroups;` where the driver's WGSL needs it.)
const SG_MIN = ${SG_MIN}u;

fn shuffle_xor_f32x2(v: vec2<f32>, mask: u32) -> vec2<f32> { return subgroupShuffleXor(v, mask); }
fn shuffle_xor_f32(v: f32, mask: u32) -> f32 { return subgroupShuffleXor(v, mask); }
fn shuffle_xor_i32(v: i32, mask: u32) -> i32 { return subgroupShuffleXor(v, mask); }
fn shuffle_xor_u32(v: u32, mask: u32) -> u32 { return subgroupShuffleXor(v, mask); }

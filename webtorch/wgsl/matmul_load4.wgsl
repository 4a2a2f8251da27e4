// A and B of matmul_vec4.wgsl and matmul_registers.wgsl: four consecutive elements per array element,
// f32s or (float16 stored as half) two words of two halves each, which load4 widens to f32. (Words, not
// f16 vectors: 8-byte loads whatever the compiler does with 16-bit storage access; unpack2x16float is
// core WGSL.)
alias Load4 = ${LOAD};
@group(0) @binding(2) var<storage, read> a: array<Load4>;
@group(0) @binding(3) var<storage, read> b: array<Load4>;

fn load4(v: Load4) -> vec4<f32> {
  ${LOAD4}
}

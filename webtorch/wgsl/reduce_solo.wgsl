// join_threads for reduce.wgsl on CPU adapters (SwiftShader, lavapipe), where a workgroup barrier costs
// more than the reads it saves (SwiftShader: a 256-thread tree made a sum of 1M floats 4x slower than
// the same reads without it): every thread's partial is a result of its own (launched with one thread
// per row or column chunk: count is 1), so the kernel has no barrier and no workgroup memory.
fn join_threads(a: Acc, lid: u32, unit: u32, count: u32) -> Acc { return a; }

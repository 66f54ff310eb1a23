//! Criterion benchmarks of btvm (`cargo bench -p btvm-benches`). The library part is empty:
//! the workloads live in `btvm_compiler::bench` so that `btvm bench` and these benchmarks time
//! exactly the same code.
#![deny(missing_docs)]

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace rapid::sim {

/// Asks the C library to keep memory the process frees for its next allocations instead of returning it to the
/// kernel. Process-wide: the executables call it first thing in main(), and the benchmarks before they time, so they
/// time what the executables run.
///
/// Why: one evaluation of a 1,024-GPU training step builds and drops a step graph of ~10^4 nodes (a few MB). glibc
/// serves blocks above its mmap threshold (128 KiB at start) with fresh mappings and gives the heap's free top back
/// once it exceeds its trim threshold, so each evaluation touched its graph's pages anew: ~190 page faults per
/// evaluation (perf stat, bench_stepmodel), which made an evaluation 3.6 ms instead of 0.6 ms on a virtual machine
/// whose page faults trap to the hypervisor, and cost less where faults are cheaper. Keeping blocks up to 32 MiB on
/// the heap and never trimming it costs the process its peak heap, which it reaches again on the next evaluation.
/// A no-op on C libraries other than glibc.
void keepFreedHeapForReuse();

} // namespace rapid::sim

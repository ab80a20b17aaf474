// SPDX-License-Identifier: GPL-3.0-or-later
// Linked into every benchmark: the heap policy of the executables (sim::keepFreedHeapForReuse, called first in rapid's
// and rapid-workbench's main), set before the benchmark's main, so the benchmarks time what the executables run.
#include "sim/heapreuse.h"

namespace {
const bool kHeapKept = [] {
    rapid::sim::keepFreedHeapForReuse();
    return true;
}();
} // namespace

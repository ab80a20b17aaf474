// SPDX-License-Identifier: GPL-3.0-or-later
#include "heapreuse.h"

#include <cstdlib> // defines __GLIBC__ on glibc, which the test below needs

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rapid::sim {

void keepFreedHeapForReuse()
{
#if defined(__GLIBC__)
    // The largest mmap threshold glibc accepts on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX, 4 MiB x sizeof(long)); setting
    // either value also turns off glibc's dynamic adjustment of both.
    constexpr int kMmapThreshold = 32 * 1024 * 1024;
    constexpr int kTrimThreshold = 1024 * 1024 * 1024;
    mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
    mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
#endif
}

} // namespace rapid::sim

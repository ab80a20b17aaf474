// SPDX-License-Identifier: GPL-3.0-or-later
#include "eagerkernels.h"

namespace rapid::model {

namespace {
constexpr double kFp32 = 4;
}

EagerKernels eagerRmsNorm(double act)
{
    EagerKernels k;
    k.forwardKernels = 8;
    k.forwardBytes = (act + kFp32) + 2 * kFp32 + kFp32 + 2 * kFp32 + (kFp32 + act) + 2 * act;
    k.backwardKernels = 14;
    k.backwardBytes = 2 * act + 3 * act + act // weight: grad input; grad weight product and reduction
        + (act + kFp32) // downcast
        + 3 * kFp32 + 3 * kFp32 + kFp32 // scale: grad x, grad rsqrt product and row sum
        + kFp32 // mean's broadcast
        + 3 * kFp32 // pow
        + 3 * kFp32 // sum of both paths
        + (kFp32 + act); // upcast
    return k;
}

EagerKernels eagerSwiGlu(double act)
{
    EagerKernels k;
    k.forwardKernels = 2;
    k.forwardBytes = 2 * act + 3 * act;
    k.backwardKernels = 3;
    k.backwardBytes = 3 * act + 3 * act + 3 * act;
    return k;
}

EagerKernels eagerRotary(double act)
{
    EagerKernels k;
    k.forwardKernels = 6;
    k.forwardBytes = (act + kFp32) + 2 * kFp32 + (kFp32 + act);
    k.backwardKernels = 6;
    k.backwardBytes = k.forwardBytes;
    return k;
}

EagerKernels vocabParallelCrossEntropyOps(double logitBytes)
{
    EagerKernels k;
    k.forwardKernels = 12;
    k.forwardBytes = (logitBytes + kFp32) + kFp32 + 2 * kFp32 + 2 * kFp32 + kFp32 + 2 * kFp32;
    k.backwardKernels = 4;
    k.backwardBytes = 2 * kFp32 + (kFp32 + logitBytes);
    return k;
}

EagerKernels pytorchCrossEntropyOps(double logitBytes, double lossBytes)
{
    const bool upcast = lossBytes != logitBytes;
    const double cast = upcast ? logitBytes + lossBytes : 0.0;
    EagerKernels k;
    k.forwardKernels = upcast ? 3 : 2;
    k.forwardBytes = cast + 3 * lossBytes + lossBytes;
    k.backwardKernels = upcast ? 4 : 3;
    k.backwardBytes = lossBytes + 4 * lossBytes + cast;
    return k;
}

} // namespace rapid::model

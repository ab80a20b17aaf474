// SPDX-License-Identifier: GPL-3.0-or-later
#include "gemmmodel.h"

#include "config/diagnostic.h"
#include "config/weightonlymath.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rapid::compute {

namespace {

// Shared memory has 32 banks of 4 bytes on every CUDA GPU since Maxwell, so an SM moves at most 128 bytes per clock.
constexpr double kSharedBytesPerClockPerSm = 128;
// A candidate must beat the one before it (larger tiles come first) by this much: larger tiles move fewer bytes,
// so near-ties go to them rather than to rounding noise.
constexpr double kSelectionMargin = 1e-3;

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

void checkInputs(const config::GpuSpec& gpu, const GemmShape& shape)
{
    if (shape.m < 1 || shape.k < 1 || shape.n < 1 || shape.batch < 1) {
        throw std::invalid_argument("GEMM dimensions must be at least 1 (m=" + std::to_string(shape.m)
            + ", k=" + std::to_string(shape.k) + ", n=" + std::to_string(shape.n)
            + ", batch=" + std::to_string(shape.batch) + ")");
    }
    if (const std::string problem = gemmShapeLimitProblem(shape); !problem.empty()) {
        throw config::InputLimitError(problem);
    }
    if (gpu.tensorPeak(shape.precision) <= 0) {
        throw std::invalid_argument(gpu.name + " has no " + config::toString(shape.precision) + " peak rate");
    }
    if (shape.storedWeights && config::isWeightOnlyFormat(*shape.storedWeights)
        && !config::readsWeightOnlyFormat(shape.precision, *shape.storedWeights, gpu.architecture)) {
        throw std::invalid_argument(config::toString(*shape.storedWeights)
            + std::string(" weights are multiplied in bf16 or fp16 (mxfp4 also in fp8 on Blackwell), not ")
            + config::toString(shape.precision));
    }
    if (gpu.smCount < 1 || gpu.clockHz <= 0 || gpu.hbmBandwidth <= 0 || gpu.l2Bandwidth <= 0
        || gpu.computeEfficiency <= 0 || gpu.memoryEfficiency <= 0 || gpu.hbmReadShare <= 0 || gpu.clockScale <= 0
        || gpu.hbmBandwidthScale <= 0) {
        throw std::invalid_argument(gpu.name
            + ": SM count, clock, bandwidths, efficiencies and derates must be "
              "positive for a GEMM estimate");
    }
}

/// Bytes per element of each operand as the kernel streams it: A in the GEMM's precision, B in its stored weight
/// format when that differs (weight-only quantisation), block or group scales included; C in at least 16 bits unless
/// the epilogue quantises it (GemmShape); `c` counts C's traffic per element, read and written when the GEMM
/// accumulates into it.
struct OperandBytes {
    double a = 0;
    double b = 0;
    double c = 0;
};

OperandBytes operandBytesOf(const GemmShape& shape)
{
    const double own = config::bytesPerElement(shape.precision);
    constexpr double kSixteenBits = 2;
    const double c = shape.accumulateInto ? 2 * config::bytesPerElement(*shape.accumulateInto)
        : shape.quantisedOutput           ? own
                                          : std::max(own, kSixteenBits);
    return { own, shape.storedWeights ? config::bytesPerElement(*shape.storedWeights) : own, c };
}

/// Bytes the A and B panels of one wave span, when the wave covers a near-square block of output tiles (the
/// rasterisation cuBLAS and CUTLASS swizzles aim for, as it maximises panel reuse inside L2).
double waveFootprintBytes(const GemmShape& shape, const GemmTile& tile, std::int64_t gridM, std::int64_t gridN,
    std::int64_t waveCtas, const OperandBytes& bytes)
{
    std::int64_t rows = std::min(gridM, static_cast<std::int64_t>(std::ceil(std::sqrt(waveCtas))));
    const std::int64_t cols = std::min(gridN, ceilDiv(waveCtas, rows));
    rows = std::min(gridM, ceilDiv(waveCtas, cols));
    const double spanM = static_cast<double>(std::min(rows * tile.ctaM, shape.m));
    const double spanN = static_cast<double>(std::min(cols * tile.ctaN, shape.n));
    return (spanM * bytes.a + spanN * bytes.b) * static_cast<double>(shape.k);
}

/// Mean latency of the main loop's loads: every load reaches L2, and the fraction of the operand bytes L2 serves
/// from DRAM (@p hbmReadBytes of the @p l2ReadBytes) pays the DRAM latency instead.
double meanLoadLatency(const config::GpuSpec& gpu, double hbmReadBytes, double l2ReadBytes)
{
    const double missFraction = l2ReadBytes > 0 ? std::min(1.0, hbmReadBytes / l2ReadBytes) : 1.0;
    return gpu.l2LatencySeconds + missFraction * (gpu.hbmLatencySeconds - gpu.l2LatencySeconds);
}

/// The largest roof names the bound, unless the fixed overheads exceed it.
GemmBound boundOf(const GemmEstimate& estimate, double roof)
{
    if (estimate.pipelineSeconds + estimate.launchSeconds > roof) {
        return GemmBound::Launch;
    }
    if (roof == estimate.computeSeconds) {
        return GemmBound::Compute;
    }
    if (roof == estimate.hbmSeconds) {
        return GemmBound::Hbm;
    }
    if (roof == estimate.l2Seconds) {
        return GemmBound::L2;
    }
    if (roof == estimate.sharedSeconds) {
        return GemmBound::Shared;
    }
    return GemmBound::Latency;
}

GemmEstimate evaluate(const config::GpuSpec& gpu, const GemmShape& shape, const GemmTile& tile, int occupancy)
{
    const OperandBytes bytes = operandBytesOf(shape);
    const double m = static_cast<double>(shape.m);
    const double k = static_cast<double>(shape.k);
    const double n = static_cast<double>(shape.n);
    const double batch = static_cast<double>(shape.batch);
    const std::int64_t gridM = ceilDiv(shape.m, tile.ctaM);
    const std::int64_t gridN = ceilDiv(shape.n, tile.ctaN);
    const std::int64_t ctasPerBatch = gridM * gridN;
    const std::int64_t kTiles = ceilDiv(shape.k, tile.ctaK);
    const std::int64_t slots = static_cast<std::int64_t>(gpu.smCount) * occupancy;

    GemmEstimate estimate;
    estimate.tile = tile;
    estimate.ctaCount = ctasPerBatch * shape.batch;
    estimate.ctasPerSm = occupancy;
    estimate.waves = static_cast<double>(estimate.ctaCount) / static_cast<double>(slots);
    estimate.fullWaves = estimate.ctaCount / slots;
    estimate.lastWaveFraction = estimate.waves - static_cast<double>(estimate.fullWaves);
    estimate.flops = 2 * m * n * k * batch;

    // The block scheduler hands CTAs to SMs as they free up, so the busiest SM runs ceil(CTAs / SMs) of them; the
    // CTAs resident together share its tensor cores. A partial last wave therefore leaves SMs idle.
    const double ctasOnBusiestSm = static_cast<double>(ceilDiv(estimate.ctaCount, gpu.smCount));
    const double smFlopsPerSecond = gpu.tensorPeak(shape.precision) * gpu.tensorEfficiency(shape.precision)
        * gpu.effectiveClockScale() / gpu.smCount;
    // Edge tiles are computed whole: tensor-core instructions have fixed shapes and the K loop runs whole steps.
    const double ctaFlops = 2.0 * tile.ctaM * tile.ctaN * tile.ctaK * static_cast<double>(kTiles);
    estimate.computeSeconds = ctasOnBusiestSm * ctaFlops / smFlopsPerSecond;

    // Each K-step writes the A and B slices into shared memory once; the tensor cores then read them. Up to Hopper
    // every warp loads its rows of A and columns of B into registers (ldmatrix for mma.sync), so slices shared by
    // several warps are read several times. Blackwell's tcgen05.mma is issued once per CTA and reads its operands
    // from shared memory through descriptors, each slice once (PTX ISA, "tcgen05.mma"; CUTLASS's SM100 kernels).
    const int warps = (tile.ctaM / tile.warpM) * (tile.ctaN / tile.warpN);
    // A weight-only quantised B stays packed in shared memory and is dequantised in registers after the read.
    const double fillPerK = tile.ctaM * bytes.a + tile.ctaN * bytes.b;
    const double operandReadsPerK = gpu.architecture == config::GpuArchitecture::Blackwell
        ? fillPerK
        : warps * (tile.warpM * bytes.a + tile.warpN * bytes.b);
    const double sharedPerStep = (fillPerK + operandReadsPerK) * tile.ctaK;
    const double sharedPerCta = sharedPerStep * static_cast<double>(kTiles);
    estimate.sharedBytes = sharedPerCta * static_cast<double>(estimate.ctaCount);
    estimate.sharedSeconds
        = ctasOnBusiestSm * sharedPerCta / (kSharedBytesPerClockPerSm * gpu.clockHz * gpu.effectiveClockScale());

    // Every CTA streams its A panel (rows of its tile, all of K) and its B panel through L2; edge tiles only move the
    // rows and columns that exist. Only SMs that hold a CTA draw bandwidth, each at most its share of the L2.
    const double activeSmFraction
        = static_cast<double>(std::min<std::int64_t>(gpu.smCount, estimate.ctaCount)) / gpu.smCount;
    const double l2PerSecond = gpu.l2Bandwidth * gpu.effectiveClockScale() * activeSmFraction;
    estimate.l2Bytes = batch
        * ((static_cast<double>(gridN) * m * bytes.a + static_cast<double>(gridM) * n * bytes.b) * k + m * n * bytes.c);
    estimate.l2Seconds = estimate.l2Bytes / l2PerSecond;

    // HBM sees the compulsory traffic while A and B fit in L2. When they do not, L2 behaves like an LRU cache under a
    // cyclic sweep larger than itself: nothing survives between waves, so every wave fetches its own panels again.
    const double operandBytes = m * k * bytes.a + k * n * bytes.b;
    double readBytes = operandBytes;
    if (operandBytes > gpu.l2Bytes) {
        const std::int64_t waveCtas = std::min(slots, ctasPerBatch);
        // A partial last wave spans proportionally fewer panels, hence the fractional wave count.
        const double wavesPerBatch = static_cast<double>(ctasPerBatch) / static_cast<double>(waveCtas);
        readBytes
            = std::max(operandBytes, wavesPerBatch * waveFootprintBytes(shape, tile, gridM, gridN, waveCtas, bytes));
    }
    estimate.hbmBytes = batch * (readBytes + m * n * bytes.c);
    // Operand panels dominate the traffic (the C tile is written once), so HBM runs at its read-stream rate.
    const double hbmPerSecond = std::min(gpu.achievedHbmRead(), l2PerSecond);
    estimate.hbmSeconds = estimate.hbmBytes / hbmPerSecond;

    // Little's law: a CTA keeps stages - 1 K-slices in flight, so its main loop advances at most stages - 1 steps per
    // memory latency however idle HBM is. CTAs resident on an SM overlap; the busiest SM runs `rounds` of them in turn.
    const double rounds = std::ceil(ctasOnBusiestSm / occupancy);
    estimate.memoryLatency = meanLoadLatency(gpu, batch * readBytes, estimate.l2Bytes - batch * m * n * bytes.c);
    estimate.latencySeconds
        = rounds * static_cast<double>(kTiles) / static_cast<double>(tile.stages - 1) * estimate.memoryLatency;

    // CTAs of a wave start and finish together, so nothing hides a CTA's prologue (the first stages-1 K-slices must
    // arrive before its first MMA) or its epilogue (the C tile leaves after its last MMA). Both move through the
    // SM's share of L2 bandwidth, once per CTA the busiest SM runs; the first slice of each round also waits one
    // memory latency.
    const double prologueK = static_cast<double>(std::min<std::int64_t>(kTiles, tile.stages - 1)) * tile.ctaK;
    const double exposedBytesPerCta = fillPerK * prologueK + static_cast<double>(tile.ctaM) * tile.ctaN * bytes.c;
    estimate.pipelineSeconds
        = ctasOnBusiestSm * exposedBytesPerCta / (gpu.l2Bandwidth * gpu.effectiveClockScale() / gpu.smCount)
        + rounds * estimate.memoryLatency;
    estimate.launchSeconds = gpu.kernelLaunchSeconds;

    const double roof = std::max({ estimate.computeSeconds, estimate.hbmSeconds, estimate.l2Seconds,
        estimate.sharedSeconds, estimate.latencySeconds });
    estimate.totalSeconds = roof + estimate.pipelineSeconds + estimate.launchSeconds;
    estimate.bound = boundOf(estimate, roof);
    return estimate;
}

} // namespace

std::string gemmShapeLimitProblem(const GemmShape& shape)
{
    const std::pair<const char*, std::int64_t> dimensions[]
        = { { "m", shape.m }, { "k", shape.k }, { "n", shape.n }, { "batch", shape.batch } };
    for (const auto& [name, value] : dimensions) {
        if (value > kMaxGemmDimension) {
            return std::string("GEMM ") + name + " = " + std::to_string(value)
                + " is beyond 2^31, the largest modelled";
        }
    }
    const double batch = static_cast<double>(shape.batch);
    const std::pair<const char*, double> operands[] = {
        { "A (m x k x batch)", static_cast<double>(shape.m) * static_cast<double>(shape.k) * batch },
        { "B (k x n x batch)", static_cast<double>(shape.k) * static_cast<double>(shape.n) * batch },
        { "C (m x n x batch)", static_cast<double>(shape.m) * static_cast<double>(shape.n) * batch },
    };
    for (const auto& [name, elements] : operands) {
        if (elements > kMaxGemmElements) {
            char text[48];
            std::snprintf(text, sizeof text, "%.3g", elements);
            return std::string("GEMM operand ") + name + " has " + text
                + " elements, beyond 2^60 (an exabyte), the largest modelled";
        }
    }
    return {};
}

const char* toString(GemmBound bound)
{
    switch (bound) {
    case GemmBound::Compute:
        return "compute";
    case GemmBound::Hbm:
        return "HBM";
    case GemmBound::L2:
        return "L2";
    case GemmBound::Shared:
        return "shared memory";
    case GemmBound::Latency:
        return "memory latency";
    case GemmBound::Launch:
        return "launch";
    }
    return "?";
}

GemmEstimate estimateGemm(const config::GpuSpec& gpu, const GemmShape& shape)
{
    checkInputs(gpu, shape);
    GemmEstimate best;
    bool found = false;
    const auto consider = [&](const std::vector<GemmTile>& tiles) {
        for (const GemmTile& tile : tiles) {
            const int occupancy = ctasPerSm(gpu, tile);
            if (occupancy < 1) {
                continue;
            }
            GemmEstimate candidate = evaluate(gpu, shape, tile, occupancy);
            if (!found || candidate.totalSeconds < best.totalSeconds * (1 - kSelectionMargin)) {
                best = candidate;
                found = true;
            }
        }
    };
    consider(gemmTileCandidates(shape.precision));
    if (shape.tokenTiles) {
        consider(gemmTokenTileCandidates(shape.precision));
    }
    if (!found) {
        throw std::invalid_argument(gpu.name + ": no GEMM tile fits in its shared memory and registers");
    }
    return best;
}

std::array<double, kGemmModelInputCount> gemmModelInputs(const config::GpuSpec& gpu, config::Precision precision)
{
    return { static_cast<double>(gpu.smCount), gpu.clockHz, gpu.tensorPeak(precision), gpu.hbmBandwidth, gpu.l2Bytes,
        gpu.l2Bandwidth, gpu.sharedMemPerSmBytes, static_cast<double>(gpu.registersPerSm),
        static_cast<double>(gpu.maxThreadsPerSm), gpu.kernelLaunchSeconds, gpu.tensorEfficiency(precision),
        gpu.achievedHbmRead(), gpu.hbmBandwidthScale, gpu.effectiveClockScale(), gpu.hbmLatencySeconds,
        gpu.l2LatencySeconds, static_cast<double>(gpu.architecture) };
}

} // namespace rapid::compute

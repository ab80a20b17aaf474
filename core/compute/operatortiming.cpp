// SPDX-License-Identifier: GPL-3.0-or-later
#include "operatortiming.h"

#include "decodegrid.h"
#include "model/attentionflops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rapid::compute {

using model::AttentionDims;
using model::Operator;
using model::OperatorKind;

namespace {

constexpr double kFp32Bytes = 4;
// Vector operations per score of the naive softmax (max, subtract, exp, sum, divide) and of its backward.
constexpr double kSoftmaxFlopsPerScore = 5;
constexpr double kSoftmaxBackwardFlopsPerScore = 3;
// Dropout of the attention probabilities: a random draw, a compare and a scale per score; the keep-mask is stored as
// one byte per score (torch.bool) for the backward.
constexpr double kDropoutFlopsPerScore = 3;
constexpr double kMaskBytes = 1;
// FlashAttention's softmax runs on the SM's special-function units (one exp2 per score) and FP32 pipes, between
// its two matrix products: FlashAttention-2 issues them in sequence (overlapping them is what FlashAttention-3
// added on Hopper), so their time adds to the tensor time. Special-function throughput: 16 results per clock per SM
// for exp2, log2, rcp, rsqrt, sin and cos on every compute capability from 5.0 to 9.0 (CUDA C++ Programming
// Guide, "Arithmetic Instructions" throughput table). FP32 instructions per score: forward, the running row
// maximum, the scale-and-subtract before exp2 (one FFMA), the row sum and the conversion of P to 16 bits;
// backward, the recomputed scale-and-subtract, dP - D, the product with P and the conversion of dS.
constexpr double kSfuResultsPerClockPerSm = 16;
constexpr double kSoftmaxFp32OpsPerScore = 4;

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return std::max<std::int64_t>(1, (a + b - 1) / b);
}

/// The GPU's derated, calibrated rates.
struct Rates {
    double hbm = 0; ///< bytes/s of streams that read and write
    double hbmRead = 0; ///< bytes/s of read-only streams
    double l2 = 0; ///< bytes/s
    double vector = 0; ///< FLOP/s
    double launch = 0; ///< seconds per kernel
    double tensor(const config::GpuSpec& gpu, config::Precision precision) const
    {
        // A precision without a tensor path (an fp8 KV cache on A100) is computed after conversion to bf16.
        const config::Precision used = gpu.tensorPeak(precision) > 0 ? precision : config::Precision::Bf16;
        return gpu.tensorPeak(used) * gpu.tensorEfficiency(used) * gpu.effectiveClockScale();
    }
};

Rates ratesOf(const config::GpuSpec& gpu)
{
    if (gpu.smCount < 1 || gpu.hbmBandwidth <= 0 || gpu.l2Bandwidth <= 0 || gpu.vectorFp32Flops <= 0
        || gpu.memoryEfficiency <= 0 || gpu.hbmReadShare <= 0 || gpu.hbmReadWriteShare <= 0
        || gpu.computeEfficiency <= 0 || gpu.hbmBandwidthScale <= 0 || gpu.clockScale <= 0) {
        throw std::invalid_argument(gpu.name
            + ": SM count, bandwidths, vector FP32 rate, efficiencies and derates must be positive to time "
              "operators");
    }
    Rates rates;
    rates.hbm = gpu.achievedHbmReadWrite();
    rates.hbmRead = gpu.achievedHbmRead();
    rates.l2 = gpu.l2Bandwidth * gpu.effectiveClockScale();
    rates.vector = gpu.vectorFp32Flops * gpu.effectiveClockScale();
    rates.launch = gpu.kernelLaunchSeconds;
    return rates;
}

OperatorBound fromGemm(GemmBound bound)
{
    switch (bound) {
    case GemmBound::Compute:
        return OperatorBound::Compute;
    case GemmBound::Hbm:
        return OperatorBound::Hbm;
    case GemmBound::L2:
        return OperatorBound::L2;
    case GemmBound::Shared:
        return OperatorBound::Shared;
    case GemmBound::Latency:
        return OperatorBound::Latency;
    case GemmBound::Launch:
        return OperatorBound::Launch;
    }
    return OperatorBound::Compute;
}

/// Roofline of the given per-level times plus @p overhead: the largest roof names the bound, unless the overhead
/// exceeds it.
OperatorTime roofline(double compute, double hbm, double l2, double overhead)
{
    OperatorTime time;
    const double roof = std::max({ compute, hbm, l2 });
    time.seconds = roof + overhead;
    if (overhead > roof) {
        time.bound = OperatorBound::Launch;
    } else if (roof == compute) {
        time.bound = OperatorBound::Compute;
    } else if (roof == hbm) {
        time.bound = OperatorBound::Hbm;
    } else {
        time.bound = OperatorBound::L2;
    }
    return time;
}

const GemmEstimate& gemmEstimate(
    const config::GpuSpec& gpu, const GemmShape& shape, GemmCache* cache, GemmEstimate& own)
{
    if (cache) {
        return cache->estimate(gpu, shape);
    }
    own = estimateGemm(gpu, shape);
    return own;
}

OperatorTime timeGemm(const config::GpuSpec& gpu, const Operator& op, GemmCache* cache)
{
    GemmShape shape { op.gemm.m, op.gemm.k, op.gemm.n, op.gemm.batch, op.precision, op.storedWeights, op.tokenTiles,
        op.quantisedOutput, op.accumulateInto };
    GemmEstimate own;
    const GemmEstimate& estimate = gemmEstimate(gpu, shape, cache, own);
    return { estimate.totalSeconds, fromGemm(estimate.bound), estimate.flops, estimate.hbmBytes };
}

void checkAttention(const AttentionDims& dims)
{
    if (dims.batch < 1 || dims.heads < 1 || dims.kvHeads < 1 || dims.queryLength < 1 || dims.keyLength < 1
        || dims.headDimQk < 1 || dims.headDimV < 1) {
        throw std::invalid_argument("attention dimensions must be at least 1");
    }
}

/// Bytes of the K and V of every KV head (once each: GQA shares them between query heads). A decode query under a
/// sliding window reads only the window's keys in the windowed layers (averaged over the layers by their share).
double keyValueBytes(const AttentionDims& dims, double elementBytes)
{
    const double perToken = static_cast<double>(dims.sharedKv ? dims.headDimQk : dims.headDimQk + dims.headDimV);
    return static_cast<double>(dims.batch) * static_cast<double>(dims.kvHeads) * effectiveDecodeKeys(dims) * perToken
        * elementBytes;
}

OperatorTime timeFlashAttention(
    const config::GpuSpec& gpu, const Rates& rates, const Operator& op, config::AttentionKernel kernel)
{
    const AttentionDims& a = op.attention;
    checkAttention(a);
    const bool backward = op.phase == model::Phase::Backward;
    const double e = config::bytesPerElement(op.precision);
    const double bh = static_cast<double>(a.batch) * static_cast<double>(a.heads);
    const double q = static_cast<double>(a.queryLength);
    const double k = static_cast<double>(a.keyLength);
    const double dqk = static_cast<double>(a.headDimQk);
    const double dv = static_cast<double>(a.headDimV);
    const double pairs = model::attentionPairs(a);

    const double qBytes = bh * q * dqk * e;
    const double oBytes = bh * q * dv * e;
    const double statsBytes = bh * q * kFp32Bytes; // log-sum-exp per query row
    const double kvBytes = keyValueBytes(a, e);
    double flops = 0;
    double hbmBytes = 0;
    double l2Bytes = 0;
    std::int64_t ctas = 0;
    if (!backward) {
        flops = model::attentionForwardFlops(a);
        hbmBytes = qBytes + kvBytes + oBytes + statsBytes;
        // Each CTA streams the K and V rows its queries attend to (causal tiles beyond the diagonal skipped).
        const std::int64_t queryTiles = ceilDiv(a.queryLength, kFlashAttentionBlockRows);
        ctas = a.batch * a.heads * queryTiles;
        l2Bytes = qBytes + oBytes + statsBytes + bh * static_cast<double>(queryTiles) * (pairs / q) * (dqk + dv) * e;
    } else {
        flops = model::attentionBackwardFlops(a, true);
        // Reads Q, K, V, O, dO and the statistics; writes dQ and dK, dV per query head (summed over a GQA group
        // afterwards, which reads them once more); dQ is accumulated in fp32 (written and read back) and converted.
        // The preprocessing pass reads O and dO for the row sums D = rowsum(dO . O) and writes D in fp32.
        const double dkvPerHead = bh * k * (dqk + dv) * e;
        const double gqaReduce = a.heads > a.kvHeads ? dkvPerHead + kvBytes : 0;
        const double dqAccumulator = bh * q * dqk * kFp32Bytes;
        hbmBytes = qBytes + kvBytes + oBytes + statsBytes // forward tensors
            + oBytes // dO
            + qBytes + dkvPerHead + gqaReduce // gradients
            + 2 * dqAccumulator // fp32 dQ written and read back
            + 2 * oBytes + statsBytes; // preprocessing D = rowsum(dO . O)
        // Each CTA owns a block of keys and streams Q, dO, the statistics and the fp32 dQ accumulator (read and
        // written) of the queries that attend to them.
        const std::int64_t keyTiles = ceilDiv(a.keyLength, kFlashAttentionBlockRows);
        ctas = a.batch * a.heads * keyTiles;
        const double streamedQueries = bh * static_cast<double>(keyTiles) * (pairs / k);
        l2Bytes = dkvPerHead + kvBytes * (a.heads > a.kvHeads ? static_cast<double>(a.heads) / a.kvHeads : 1.0)
            + streamedQueries * ((dqk + dv) * e + 2 * kFp32Bytes + 2 * dqk * kFp32Bytes);
    }
    // The busiest SM runs ceil(CTAs / SMs) CTAs of average work: a partial last wave leaves SMs idle. Each score
    // costs its share of the matrix products on the tensor cores, at the share of the rate the kernel's products
    // reach on this GPU (its published benchmark), and one exp2 and a few FP32 instructions. FlashAttention-2 issues
    // the softmax between the products (synchronous mma), so the two add; FlashAttention-3 and cuDNN overlap them
    // (asynchronous wgmma, ping-pong warpgroups), so the longer of the two sets the time.
    if (kernel == config::AttentionKernel::Auto) {
        kernel = config::AttentionKernel::Fa2;
    }
    const config::AttentionKernelEfficiency& kernelEfficiency = gpu.attentionKernelEfficiency(kernel);
    const double smRate = rates.tensor(gpu, op.precision)
        * (backward ? kernelEfficiency.backward : kernelEfficiency.forward) / gpu.smCount;
    const double sfuRate = kSfuResultsPerClockPerSm * gpu.clockHz * gpu.effectiveClockScale();
    const double fp32InstructionRate = rates.vector / 2 / gpu.smCount; // an FFMA counts 2 FLOP
    const double ctasOnBusiestSm = static_cast<double>(ceilDiv(ctas, gpu.smCount));
    const double scoresPerCta
        = static_cast<double>(a.batch) * static_cast<double>(a.heads) * pairs / static_cast<double>(ctas);
    const double softmaxSecondsPerCta = scoresPerCta * (1 / sfuRate + kSoftmaxFp32OpsPerScore / fp32InstructionRate);
    const double tensorSecondsPerCta = (flops / static_cast<double>(ctas)) / smRate;
    const bool softmaxOverlapped = kernel != config::AttentionKernel::Fa2;
    const double computeSeconds = ctasOnBusiestSm
        * (softmaxOverlapped ? std::max(tensorSecondsPerCta, softmaxSecondsPerCta)
                             : tensorSecondsPerCta + softmaxSecondsPerCta);
    const double activeSmFraction = static_cast<double>(std::min<std::int64_t>(gpu.smCount, ctas)) / gpu.smCount;
    OperatorTime time
        = roofline(computeSeconds, hbmBytes / rates.hbm, l2Bytes / (rates.l2 * activeSmFraction), rates.launch);
    time.flops = flops;
    time.bytes = hbmBytes;
    return time;
}

/// Adds one kernel's time to a multi-kernel operator; the bound of the operator is that of its longest kernel.
struct KernelSum {
    OperatorTime total;
    double longest = -1;
    void add(double seconds, OperatorBound bound, double bytes)
    {
        total.seconds += seconds;
        total.bytes += bytes;
        if (seconds > longest) {
            longest = seconds;
            total.bound = bound;
        }
    }
    void add(const GemmEstimate& estimate) { add(estimate.totalSeconds, fromGemm(estimate.bound), estimate.hbmBytes); }
};

OperatorTime timeNaiveAttention(const config::GpuSpec& gpu, const Rates& rates, const Operator& op, GemmCache* cache)
{
    const AttentionDims& a = op.attention;
    checkAttention(a);
    const double e = config::bytesPerElement(op.precision);
    const std::int64_t bh = a.batch * a.heads;
    // Naive attention (Megatron-LM's CoreAttention before FlashAttention: torch.baddbmm for the scores, a fused
    // scale-mask-softmax kernel, torch dropout, torch.bmm) computes and stores the whole S x S matrix and masks the
    // causal half afterwards, so its kernels do the full work; only the FLOPs reported are the useful (causal) ones.
    const double scores
        = static_cast<double>(bh) * static_cast<double>(a.queryLength) * static_cast<double>(a.keyLength);
    auto gemm = [&](std::int64_t m, std::int64_t k, std::int64_t n) -> GemmEstimate {
        GemmEstimate own;
        return gemmEstimate(gpu, { m, k, n, bh, op.precision, std::nullopt }, cache, own); // attention: no weights
    };
    auto softmax = [&](double bytes, double flopsPerScore, KernelSum& sum) {
        const double hbm = bytes / rates.hbm;
        const double vector = scores * flopsPerScore / rates.vector;
        const OperatorTime t = roofline(vector, hbm, 0, rates.launch);
        sum.add(t.seconds, t.bound, bytes);
    };

    KernelSum sum;
    if (op.phase != model::Phase::Backward) {
        sum.total.flops = model::attentionForwardFlops(a);
        sum.add(gemm(a.queryLength, a.headDimQk, a.keyLength)); // S = Q K^T
        softmax(2 * scores * e, kSoftmaxFlopsPerScore, sum); // reads S, writes P
        if (a.probabilityDropout) {
            softmax((2 * e + kMaskBytes) * scores, kDropoutFlopsPerScore, sum); // reads P, writes P' and the mask
        }
        sum.add(gemm(a.queryLength, a.keyLength, a.headDimV)); // O = P' V
    } else {
        sum.total.flops = model::attentionBackwardFlops(a, false);
        sum.add(gemm(a.keyLength, a.queryLength, a.headDimV)); // dV = P'^T dO
        sum.add(gemm(a.queryLength, a.headDimV, a.keyLength)); // dP' = dO V^T
        if (a.probabilityDropout) {
            softmax((2 * e + kMaskBytes) * scores, kDropoutFlopsPerScore, sum); // reads dP' and the mask, writes dP
        }
        softmax(3 * scores * e, kSoftmaxBackwardFlopsPerScore, sum); // reads P and dP, writes dS
        sum.add(gemm(a.queryLength, a.keyLength, a.headDimQk)); // dQ = dS K
        sum.add(gemm(a.keyLength, a.queryLength, a.headDimQk)); // dK = dS^T Q
    }
    return sum.total;
}

OperatorTime timeDecodeAttention(
    const config::GpuSpec& gpu, const Rates& rates, const Operator& op, config::AttentionKernel attentionKernel)
{
    const AttentionDims& a = op.attention;
    checkAttention(a);
    const double e = config::bytesPerElement(op.precision);
    const double queryRows = static_cast<double>(a.batch) * static_cast<double>(a.heads) * a.queryLength;
    const double bytes = keyValueBytes(a, e) + queryRows * static_cast<double>(a.headDimQk + a.headDimV) * e;
    const double flops = model::attentionForwardFlops(a);
    const DecodeKernel kernel = decodeKernelOf(attentionKernel);
    const DecodeGrid grid = decodeGrid(a, gpu.smCount, a.splitKv, kernel);
    // With splits, each writes its rows' fp32 partial output and log-sum-exp, read back by the reduction, which
    // writes the output: in a kernel of its own (FlashAttention-2/3's flash_fwd_splitkv_combine_kernel and
    // flash_fwd_combine, FlashInfer's merge of states) or in the last CTA of each sequence (TensorRT-LLM's
    // multi-block mode).
    const double output = queryRows * static_cast<double>(a.headDimV) * e;
    const double partials = grid.splits > 1
        ? static_cast<double>(grid.splits) * queryRows * static_cast<double>(a.headDimV + 1) * kFp32Bytes
        : 0.0;
    const bool combineKernel = grid.splits > 1 && a.splitCombineKernel;
    const double combineBytes = combineKernel ? partials + output : 0.0;
    const double mainBytes = bytes + 2 * partials - combineBytes;
    // Few CTAs cannot keep HBM busy: each streams its key blocks (and value blocks, unless MLA's shared latent) with
    // only the kernel's pipeline of blocks in flight, so it waits one DRAM latency per pipeline's worth of blocks.
    const std::int64_t blocksPerCta = ceilDiv(grid.keyBlocks, grid.splits) * (a.sharedKv ? 1 : 2);
    const std::int64_t waits = ceilDiv(blocksPerCta, kernel.blocksInFlight);
    const std::int64_t waves = ceilDiv(grid.ctas(), static_cast<std::int64_t>(gpu.smCount) * kernel.ctasPerSm);
    const double latencyBound = static_cast<double>(waves * waits) * gpu.hbmLatencySeconds;
    // Nor can fewer CTAs than SMs: each SM takes its data through its own port to L2, the SM's share of the L2
    // bandwidth, so the kernel streams through at most min(CTAs, SMs) of them.
    const double ports = static_cast<double>(std::min<std::int64_t>(grid.ctas(), gpu.smCount));
    const double portSeconds = mainBytes / (rates.l2 * ports / static_cast<double>(gpu.smCount));
    OperatorTime time
        = roofline(flops / rates.tensor(gpu, op.precision), mainBytes / rates.hbmRead, portSeconds, rates.launch);
    if (latencyBound + rates.launch > time.seconds) {
        time.seconds = latencyBound + rates.launch;
        time.bound = OperatorBound::Latency;
    }
    if (combineKernel) {
        time.seconds += roofline(0, combineBytes / rates.hbm, 0, rates.launch).seconds;
    }
    time.flops = flops;
    time.bytes = bytes + 2 * partials;
    return time;
}

OperatorTime timeMemoryBound(const Rates& rates, const Operator& op)
{
    // 0 kernels: work fused into another kernel (a collective's epilogue) that pays no launch of its own.
    if (op.bytes < 0 || op.flops < 0 || op.kernels < 0) {
        throw std::invalid_argument(op.name + ": negative bytes, FLOPs or kernels");
    }
    OperatorTime time = roofline(op.flops / rates.vector, op.bytes / rates.hbm, 0, rates.launch * op.kernels);
    time.flops = op.flops;
    time.bytes = op.bytes;
    return time;
}

} // namespace

const char* toString(OperatorBound bound)
{
    switch (bound) {
    case OperatorBound::Compute:
        return "compute";
    case OperatorBound::Hbm:
        return "hbm";
    case OperatorBound::L2:
        return "l2";
    case OperatorBound::Shared:
        return "shared";
    case OperatorBound::Launch:
        return "launch";
    case OperatorBound::Latency:
        return "latency";
    }
    return "unknown";
}

OperatorTime timeOperator(
    const config::GpuSpec& gpu, const Operator& op, GemmCache* cache, config::AttentionKernel attentionKernel)
{
    if (op.kind == OperatorKind::Gemm) {
        return timeGemm(gpu, op, cache);
    }
    const Rates rates = ratesOf(gpu);
    switch (op.kind) {
    case OperatorKind::FlashAttention:
        return timeFlashAttention(gpu, rates, op, attentionKernel);
    case OperatorKind::NaiveAttention:
        return timeNaiveAttention(gpu, rates, op, cache);
    case OperatorKind::DecodeAttention:
        return timeDecodeAttention(gpu, rates, op, attentionKernel);
    default:
        return timeMemoryBound(rates, op);
    }
}

} // namespace rapid::compute

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rapid::config {

/// Numeric formats of tensors and tensor-core math. Nvfp4: NVIDIA's block-scaled 4-bit float (E2M1 values, one E4M3
/// scale per block of 16 and an FP32 scale per tensor; Blackwell tensor cores), modelled for inference weights and
/// GEMMs. Int4: the weight-only format of AWQ and GPTQ checkpoints (4-bit integers, one fp16 scale per group of 128
/// along K), inference weights only: their GEMMs dequantise in registers and multiply in bf16 or fp16 (W4A16).
/// Mxfp4: the OCP Microscaling MXFP4 format (E2M1 values, one E8M0 power-of-two scale byte per block of 32; OCP MX
/// specification v1.0), as gpt-oss ships its experts: a weight-only format too, multiplied in bf16 on Hopper.
enum class Precision { Fp32, Tf32, Bf16, Fp16, Fp8, Int8, Nvfp4, Int4, Mxfp4 };
constexpr int kPrecisionCount = 9;

/// Bytes per element of a precision as stored, block scales included (tf32 is stored as fp32; nvfp4 is half a byte
/// plus one scale byte per 16 elements; int4 half a byte plus a 2-byte scale per 128 elements; mxfp4 half a byte plus
/// a scale byte per 32).
double bytesPerElement(Precision precision);
/// Bytes per element of the values alone, as a GEMM's K-slices pack them (nvfp4, int4 and mxfp4: 0.5; otherwise
/// bytesPerElement).
double packedBytesPerElement(Precision precision);
/// Whether @p precision is a storage format of weights only (int4, mxfp4): no tensor rate of its own, nothing else is
/// stored in it, and its GEMMs dequantise the weights in registers and multiply in 16 bits.
bool isWeightOnlyFormat(Precision precision);
/// Whether weights stored in @p precision come from a quantised checkpoint (fp8, int8, nvfp4, int4, mxfp4): such
/// checkpoints keep the embedding and the LM head in 16 bits (NVIDIA ModelOpt's default exclusion of lm_head; an
/// embedding is a lookup).
bool isQuantizedWeightFormat(Precision precision);
const char* toString(Precision precision);

/// The GPU generation, where it decides which kernels exist (FlashAttention-3 needs Hopper's wgmma and TMA) and
/// which attention kernel a framework picks (config/attentionkernel.h). Other: not stated.
enum class GpuArchitecture { Other, Ampere, Hopper, Blackwell };
const char* toString(GpuArchitecture value);

/// The fused attention kernel that runs FlashAttention-style attention. Auto: the framework's own choice on the GPU's
/// architecture (config/attentionkernel.h); Fa2: FlashAttention-2 (PyTorch SDPA's flash backend, the flash-attn
/// package); Fa3: FlashAttention-3 (Hopper only); Cudnn: cuDNN's fused attention (Transformer Engine's
/// FusedAttention, PyTorch SDPA's cuDNN backend).
enum class AttentionKernel { Auto, Fa2, Fa3, Cudnn };
const char* toString(AttentionKernel value);
constexpr int kAttentionKernelCount = 4;

/// What one fused attention kernel reaches on one GPU: the share of the sustained tensor rate its matrix products
/// issue at, in the schedule the timing model gives that kernel (compute/operatortiming.h), per pass.
struct AttentionKernelEfficiency {
    double forward = 1.0;
    double backward = 1.0;
    bool operator==(const AttentionKernelEfficiency&) const = default;
};

/// One GPU. All quantities in SI base units: bytes, seconds, bytes/s, FLOP/s, hertz, watts, joules.
struct GpuSpec {
    std::string name;
    int smCount = 0;
    double clockHz = 0; ///< sustained boost clock of the SMs
    /// Dense (no sparsity) tensor-core peak per precision at clockHz, indexed by Precision.
    /// 0 means the GPU has no tensor path for that precision (e.g. fp8 on A100).
    std::array<double, kPrecisionCount> tensorFlops {};
    double vectorFp32Flops = 0; ///< non-tensor FP32 FLOP/s (CUDA cores), used by element-wise ops
    double hbmCapacityBytes = 0;
    double hbmBandwidth = 0; ///< bytes/s, datasheet peak
    /// Shares of hbmBandwidth streaming kernels reach, from a STREAM-class microbenchmark of the part (1 = not
    /// measured: the datasheet peak). DRAM loses cycles turning its bus around between reads and writes, so a read-only
    /// stream (BabelStream's Dot: GEMM operands, decode GEMV weights, KV-cache reads) beats one that also writes
    /// (BabelStream's Triad, two reads per write: element-wise kernels, norms, optimizer updates). Shares, not rates,
    /// so that a what-if on the datasheet bandwidth carries them along.
    double hbmReadShare = 1.0;
    double hbmReadWriteShare = 1.0;
    double l2Bytes = 0;
    double l2Bandwidth = 0; ///< bytes/s, aggregate over all slices
    /// Load-to-use latency of one access that misses L2 and goes to DRAM, and of one that hits L2 (pointer-chase
    /// microbenchmarks), in seconds; the what-if clock derate does not scale them. 0 = unknown: the GEMM model then has
    /// no memory-latency bound.
    double hbmLatencySeconds = 0;
    double l2LatencySeconds = 0;
    double sharedMemPerSmBytes = 0; ///< configurable shared memory available to one SM
    int registersPerSm = 65536; ///< 32-bit registers per SM
    int maxThreadsPerSm = 2048;
    double kernelLaunchSeconds = 0; ///< host launch + GPU scheduling overhead per kernel
    /// Copy-engine rates between pinned host memory and HBM, bytes/s, measured with large copies (nvbandwidth's
    /// host_to_device_memcpy_ce and device_to_host_memcpy_ce); 0 = not given. Swapped KV-cache blocks move at them.
    double hostToDeviceBandwidth = 0;
    double deviceToHostBandwidth = 0;
    /// Documented calibration: fraction of datasheet peak that well-tuned kernels reach.
    double computeEfficiency = 1.0;
    double memoryEfficiency = 1.0;
    /// Achieved FP8 matmul rate relative to BF16's at the same clock: cuBLAS reaches a smaller fraction of the FP8
    /// peak than of the BF16 one (MAMF table, S. Bekman, "Machine Learning Engineering": H100 SXM 70.9% vs 80.3%).
    double fp8MatmulRatio = 1.0;
    /// The same for NVFP4 GEMMs (Blackwell), relative to BF16's achieved share of its peak.
    double nvfp4MatmulRatio = 1.0;
    /// Per attention kernel (indexed by AttentionKernel; Auto unused), from a published benchmark of that kernel on
    /// this GPU (1.0 = the first-principles rate, no measurement).
    std::array<AttentionKernelEfficiency, kAttentionKernelCount> attentionEfficiency {};
    GpuArchitecture architecture = GpuArchitecture::Other;
    /// What-if derates (1.0 = as built): scale HBM bandwidth or the SM clock.
    double hbmBandwidthScale = 1.0;
    double clockScale = 1.0;
    /// Clock the SMs hold under sustained dense tensor load, when the power limit keeps them below clockHz
    /// (0 = clockHz). Compute and on-chip roofs run at min(clockHz * clockScale, sustainedClockHz).
    double sustainedClockHz = 0;
    // Energy model (zero = unknown).
    double tdpWatts = 0;
    double idleWatts = 0;
    double joulesPerFlop = 0; ///< dynamic energy per tensor FLOP (bf16)
    double joulesPerHbmByte = 0;

    double tensorPeak(Precision precision) const { return tensorFlops[static_cast<int>(precision)]; }
    /// HBM bytes/s a read-only stream reaches: the datasheet bandwidth times its measured share, the what-if derate
    /// and the calibration factor.
    double achievedHbmRead() const { return hbmBandwidth * hbmReadShare * hbmBandwidthScale * memoryEfficiency; }
    /// The same for streams that read and write.
    double achievedHbmReadWrite() const
    {
        return hbmBandwidth * hbmReadWriteShare * hbmBandwidthScale * memoryEfficiency;
    }
    /// Fraction of @p precision's tensor peak well-tuned GEMMs reach (before clock scaling).
    double tensorEfficiency(Precision precision) const
    {
        return computeEfficiency
            * (precision == Precision::Fp8          ? fp8MatmulRatio
                    : precision == Precision::Nvfp4 ? nvfp4MatmulRatio
                                                    : 1.0);
    }
    /// The factor compute and on-chip rates are scaled by: the what-if clockScale, capped by the sustained clock.
    double effectiveClockScale() const
    {
        const double cap = sustainedClockHz > 0 && clockHz > 0 ? sustainedClockHz / clockHz : clockScale;
        return clockScale < cap ? clockScale : cap;
    }
    const AttentionKernelEfficiency& attentionKernelEfficiency(AttentionKernel kernel) const
    {
        return attentionEfficiency[static_cast<int>(kernel)];
    }
    bool operator==(const GpuSpec&) const = default;
};

/// Kinds of one network dimension.
/// RailOptimized: the scale-out dimension of a rail-optimised fabric (NVIDIA DGX SuperPOD): GPU k of every node
/// attaches to rail k's leaves (the instances of the dimension are the rails), and every rail's leaves uplink to
/// spines the rails share; a two-tier leaf-spine tree per rail (docs/resilience.md, "Fabrics").
enum class NetworkKind { Ring, FullyConnected, Switch, Torus2d, Torus3d, Mesh2d, FatTree, RailOptimized };
const char* toString(NetworkKind kind);
/// Whether @p kind is a leaf-spine tree (fat-tree or rail-optimized).
inline bool isTree(NetworkKind kind)
{
    return kind == NetworkKind::FatTree || kind == NetworkKind::RailOptimized;
}

/// How a dimension routes a pair of endpoints (docs/resilience.md, "Routing"). Auto: the kind's default
/// (effectiveRouting). Static: one deterministic shortest path per pair (dimension order on rings, tori and meshes;
/// on trees the up-port chosen by the destination, D-mod-k, as InfiniBand's subnet manager programs it), and around a
/// failure one deterministic surviving shortest path. Ecmp: an even split over every shortest path (surviving ones
/// around a failure). Adaptive: the fluid limit of per-packet adaptive routing: a split over every surviving shortest
/// path in proportion to its bottleneck bandwidth, so degraded links carry less.
enum class Routing { Auto, Static, Ecmp, Adaptive };
const char* toString(Routing value);

/// One dimension of a multi-dimensional network (e.g. NVLink switch inside a node, InfiniBand fat tree across nodes).
struct NetworkDimension {
    std::string name; ///< unique within the network; used by link ids and parallelism mapping
    NetworkKind kind = NetworkKind::Switch;
    int size = 0; ///< endpoints in this dimension (product of shape for tori/meshes)
    std::vector<int> shape; ///< torus2d/mesh2d: {x, y}; torus3d: {x, y, z}; otherwise {size}
    double linkBandwidth = 0; ///< bytes/s per link per direction (the line rate)
    /// Share of the line rate that carries data (packet headers and flow control take the rest): the network model
    /// moves bytes at linkBandwidth x protocolEfficiency on every link of this dimension.
    double protocolEfficiency = 1.0;
    /// Switch dimensions with in-switch reduction (NVLink SHARP, NCCL's NVLS): the all-reduce algorithm bandwidth
    /// (bytes reduced per second) the switch sustains for a group of its endpoints; 0: none.
    double inNetworkAllReduceBandwidth = 0;
    double latencySeconds = 0; ///< per hop
    /// A step of NCCL's ring across this dimension at small messages, measured (its LL protocol: each 8-byte line is
    /// written to the next GPU with a flag, polled there, reduced and forwarded), when it exceeds the path's latency:
    /// ring steps of collectives NCCL runs (CollectiveLibrary::Nccl) take the larger of the two, while one-shot
    /// exchanges of serving engines' own kernels and every other algorithm take the path latency. 0: not measured.
    double ncclStepSeconds = 0;
    // Fat tree only.
    int tiers = 0; ///< switch levels above the endpoints (1 = a single switch layer)
    int switchRadix = 0; ///< ports per switch
    double oversubscription = 1.0; ///< downlink:uplink bandwidth ratio at each tier above the leaf (>= 1)
    /// Explicit leaf-spine structure (two tiers; always set for rail-optimized, 0 = derived from the radix): endpoints
    /// below a leaf, uplinks of a leaf (spread evenly over the spines: uplinksPerLeaf / spines parallel cables to
    /// each), spine switches (per instance), and the rate of one uplink (bytes/s per direction).
    int hostsPerLeaf = 0;
    int uplinksPerLeaf = 0;
    int spines = 0;
    double uplinkBandwidth = 0;
    Routing routing = Routing::Auto;

    /// Whether the leaf-spine structure is given explicitly (hostsPerLeaf and the others are set).
    bool explicitLeafSpine() const { return hostsPerLeaf > 0; }
    bool operator==(const NetworkDimension&) const = default;
};

/// The routing of @p dimension: its routing key, or for Auto the kind's default: Static (a switch and a
/// fully-connected dimension have one path per pair; rings, tori and meshes route dimension-order with a detour;
/// a rail-optimized InfiniBand fabric routes one path per destination), except Ecmp for a generic fat-tree (its
/// behaviour before routing was a key); see docs/resilience.md.
Routing effectiveRouting(const NetworkDimension& dimension);

/// Largest number of endpoints a fat tree of @p tiers switch levels of @p switchRadix ports can hold: the radix at one
/// tier, else radix x (radix/2)^(tiers-1) (each switch below the top splits its ports evenly between down and up).
/// Saturates at INT_MAX; 0 for tiers < 1 or radix < 2.
long long fatTreeCapacity(int tiers, int switchRadix);

/// A degraded or failed physical link, named by its stable id "<dimension>:<a>-<b>" (see configs/README.md), or a
/// degraded or failed NIC: with nicNode (or nicGpu) >= 0 and linkId empty, every link of that node's GPUs (of that
/// GPU) in dimension nicDimension (empty: the outermost, scale-out dimension).
struct LinkFault {
    std::string linkId;
    double health = 1.0; ///< multiplies the link bandwidth; 0 = failed (removed from routing)
    int nicNode = -1;
    int nicGpu = -1;
    std::string nicDimension {};

    bool isNic() const { return nicNode >= 0 || nicGpu >= 0; }
    /// "ib:5-s1.0", or "NICs of node 3" / "NIC of GPU 27" (with " (ib)" when the dimension is named).
    std::string describe() const;
    bool operator==(const LinkFault&) const = default;
};

/// A GPU that computes slower than its preset (clock throttling, thermal or power capping, degraded HBM): every kernel
/// it runs takes `slowdown` times as long. Its peers in tensor-, context- and expert-parallel groups wait for it at
/// every collective, and the step waits for its data-parallel replica.
struct GpuStraggler {
    int gpu = 0; ///< global GPU index (= the rank that runs on it)
    double slowdown = 1.0; ///< >= 1

    bool operator==(const GpuStraggler&) const = default;
};

struct ClusterSpec {
    std::string name;
    int gpusPerNode = 1;
    std::vector<NetworkDimension> dimensions; ///< innermost first; total GPUs = product of sizes

    /// Product of the dimension sizes (1 for a single GPU without network).
    int totalGpus() const;
    bool operator==(const ClusterSpec&) const = default;
};

struct HardwareSpec {
    std::string name;
    GpuSpec gpu;
    ClusterSpec cluster;
    std::vector<LinkFault> faults;
    std::vector<GpuStraggler> stragglers;

    bool operator==(const HardwareSpec&) const = default;
};

} // namespace rapid::config

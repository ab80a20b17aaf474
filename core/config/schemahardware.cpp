// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU and hardware documents' keys (configs/README.md, "gpu" and "hardware").
#include "schemabuilder_p.h"

namespace rapid::config::schema::detail {

namespace {
constexpr double kHuge = 1e30;
// Loaded DRAM latencies of GPUs are hundreds of nanoseconds; a value near a millisecond is a unit slip.
constexpr double kMaxMemoryLatency = 1e-4;
// Quantities that may be zero: the exclusive lower bound sits just below it.
constexpr double kZeroAllowed = -1e-30;
// Rates have a floor far below any real part (an H100 SM alone does 7 TFLOP/s; PCIe 1.0 x1 moves 250 MB/s), so a
// slip such as 5e-324 GB/s is refused where it enters instead of turning a step time into infinity.
constexpr double kMinFlopRate = 1e9; // 1 GFLOP/s
constexpr double kMinByteRate = 1e6; // 1 MB/s
constexpr double kMinClock = 1e6; // 1 MHz

void addTensorRates(std::vector<Key>& keys)
{
    keys.push_back(mapping("tensor_TFLOPs", required(),
        "dense peak per precision in TFLOP/s (or `tensor:` with unit strings); omit a precision the GPU lacks; "
        "needs bf16 or fp16"));
    const char* notes[] = { "non-tensor FP32 if the GPU has no FP32 tensor path", "", "", "", "", "in TOPS",
        "block-scaled 4-bit float, Blackwell" };
    int index = 0;
    for (const std::string& word : config::detail::enumWordList<Precision>()) {
        if (word == "int4" || word == "mxfp4") {
            continue; // weight-only storage, multiplied in 16 bits: no tensor rate of its own
        }
        Key rate = quantity("tensor_TFLOPs." + word, Dimension::FlopsPerSecond, "", kMinFlopRate, kHuge, optional(),
            word + " tensor-core peak" + (notes[index][0] ? std::string(" (") + notes[index] + ")" : ""));
        keys.push_back(rate);
        ++index;
    }
    keys.push_back(mapping(
        "tensor", optional(), "the same rates as unit strings (`bf16: \"989 TFLOP/s\"`), instead of tensor_TFLOPs"));
}

void addMemories(std::vector<Key>& keys)
{
    keys.push_back(mapping("hbm", required(), "device memory"));
    keys.push_back(quantity("hbm.capacity", Dimension::Bytes, "GiB", 0, kHuge, required(), "capacity"));
    keys.push_back(quantity("hbm.bandwidth", Dimension::BytesPerSecond, "GBps", kMinByteRate, kHuge, required(),
        "datasheet peak bandwidth"));
    keys.push_back(quantity("hbm.latency", Dimension::Seconds, "ns", 0, kMaxMemoryLatency, optional(),
        "load-to-use latency of an access that misses L2 (pointer-chase microbenchmarks); give with l2.latency"));
    keys.push_back(mapping("l2", required(), "last-level cache"));
    keys.push_back(quantity("l2.size", Dimension::Bytes, "MiB", 0, kHuge, required(), "capacity"));
    keys.push_back(quantity(
        "l2.bandwidth", Dimension::BytesPerSecond, "GBps", kMinByteRate, kHuge, required(), "aggregate bandwidth"));
    keys.push_back(quantity("l2.latency", Dimension::Seconds, "ns", 0, kMaxMemoryLatency, optional(),
        "mean L2-hit latency; give both latencies or neither: without them the GEMM model has no memory-latency bound "
        "(CTAs x (stages - 1) K-slices in flight per latency) and no latency in its pipeline fill"));
    keys.push_back(mapping("host_link", optional(), "copies between pinned host memory and HBM"));
    keys.push_back(quantity("host_link.to_device", Dimension::BytesPerSecond, "GBps", kMinByteRate, kHuge, optional(),
        "copy-engine rate host to GPU, measured with large copies (nvbandwidth host_to_device_memcpy_ce); serving's "
        "swap preemption needs both rates"));
    keys.push_back(quantity("host_link.from_device", Dimension::BytesPerSecond, "GBps", kMinByteRate, kHuge, optional(),
        "copy-engine rate GPU to host (nvbandwidth device_to_host_memcpy_ce)"));
}

void addCalibrationAndPower(std::vector<Key>& keys)
{
    keys.push_back(mapping("efficiency", optional(), "documented calibration factors"));
    keys.push_back(number("efficiency.compute", 0.01, 1.0, value("1"), "fraction of the tensor peak reached"));
    keys.push_back(number("efficiency.hbm_read", 0.01, 1.0, value("1"),
        "share of hbm.bandwidth a read-only stream reaches, measured (BabelStream's Dot kernel): the HBM roof of "
        "GEMMs, decode GEMVs and KV-cache reads"));
    keys.push_back(number("efficiency.hbm_read_write", 0.01, 1.0, value("1"),
        "share of hbm.bandwidth a stream that reads and writes reaches, measured (BabelStream's Triad kernel): the HBM "
        "roof of element-wise kernels, norms, softmax, losses and optimizer updates"));
    keys.push_back(number("efficiency.memory", 0.01, 1.0, value("1"),
        "calibration factor on both HBM stream rates (documented in the preset when it is not 1)"));
    keys.push_back(number("efficiency.fp8_matmul_ratio", 0.01, 1.0, value("1"),
        "achieved fp8 matmul rate relative to bf16's (MAMF fp8 efficiency / MAMF bf16 efficiency)"));
    keys.push_back(number("efficiency.nvfp4_matmul_ratio", 0.01, 1.0, value("1"),
        "achieved nvfp4 matmul rate relative to bf16's, as fp8_matmul_ratio"));
    for (const char* kernel : { "fa2", "fa3", "cudnn" }) {
        for (const char* pass : { "forward", "backward" }) {
            keys.push_back(number(std::string("efficiency.") + kernel + "_" + pass, 0.01, 1.0, value("1"),
                std::string("share of the sustained tensor rate the ") + kernel + " attention kernel's " + pass
                    + " matrix products reach (from a published benchmark of that kernel on this GPU; "
                      "compute/operatortiming.h)"));
        }
    }
    keys.push_back(mapping("derate", optional(), "what-if scale factors"));
    keys.push_back(number("derate.hbm_bandwidth", 0.01, 4.0, value("1"), "scales the HBM bandwidth"));
    keys.push_back(number("derate.clock", 0.01, 4.0, value("1"), "scales the clock and the compute rates"));
    keys.push_back(mapping("power", optional(), "power and energy figures"));
    keys.push_back(quantity("power.tdp", Dimension::Watts, "W", 0, 1e5, required(), "board power limit"));
    keys.push_back(
        quantity("power.idle", Dimension::Watts, "W", kZeroAllowed, 1e5, value("0"), "idle power; at most tdp"));
    keys.push_back(quantity("power.energy_per_flop", Dimension::Joules, "pJ", kZeroAllowed, 1e-6, value("0"),
        "dynamic energy of one tensor FLOP"));
    keys.push_back(quantity("power.energy_per_hbm_byte", Dimension::Joules, "pJ", kZeroAllowed, 1e-6, value("0"),
        "dynamic energy of one HBM byte"));
}
} // namespace

std::vector<Key> gpuKeys()
{
    std::vector<Key> keys = {
        text("name", required(), "display name"),
        choice<GpuArchitecture>("architecture", value("other"),
            "GPU generation: which attention kernels exist (fa3 needs hopper) and which one a framework picks"),
        integer("sm_count", 1, 1 << 16, required(), "streaming multiprocessors"),
        quantity("clock", Dimension::Hertz, "GHz", kMinClock, 1e11, required(),
            "boost clock at which tensor_TFLOPs are quoted"),
        quantity("sustained_clock", Dimension::Hertz, "GHz", kMinClock, 1e11, derived("clock"),
            "clock held under sustained dense tensor load when the power limit caps it (compute and on-chip rates use "
            "the "
            "lower of the two); at most clock"),
    };
    addTensorRates(keys);
    keys.push_back(quantity(
        "vector_fp32", Dimension::FlopsPerSecond, "TFLOPs", kMinFlopRate, kHuge, required(), "CUDA-core FP32 peak"));
    addMemories(keys);
    // Floors: every tensor-core GPU (Volta on) has at least 64 KiB of shared memory, 64k registers and 1,024 threads
    // per SM; the GEMM model's smallest CTA tile needs 18 KiB, 3,584 registers and 128 threads (compute/gemmtile.cpp).
    keys.push_back(quantity("shared_memory_per_sm", Dimension::Bytes, "KiB", 32 * 1024, 1 << 30, required(),
        "largest shared-memory carve-out per SM"));
    keys.push_back(integer("registers_per_sm", 16384, 1 << 24, value("65536"), "32-bit registers per SM"));
    keys.push_back(integer("max_threads_per_sm", 256, 1 << 16, value("2048"), "resident threads per SM"));
    keys.push_back(quantity(
        "kernel_launch", Dimension::Seconds, "us", kZeroAllowed, 1.0, required(), "per-kernel launch overhead"));
    addCalibrationAndPower(keys);
    return keys;
}

std::vector<Key> hardwareKeys()
{
    return {
        text("name", derived("the GPU's name"), "display name"),
        text("gpu", required(), "a GPU preset name or an inline gpu mapping (see gpu)"),
        mapping("cluster", optional(), "the GPUs and their network"),
        integer("cluster.gpus_per_node", 1, 1 << 16, required(), "GPUs per node; divides the GPU count"),
        list("cluster.network", required(), "network dimensions, innermost first; GPU count = product of their sizes"),
        text("cluster.network[].name", derived("dim0, dim1, ... by position"),
            "unique; used by link ids and run.parallelism.mapping"),
        choice<NetworkKind>("cluster.network[].kind", required(), "topology of this dimension"),
        integer("cluster.network[].size", 2, 1 << 20, derived("product of shape"),
            "endpoints in this dimension; for tori and meshes the product of shape"),
        list("cluster.network[].shape", derived("[size]"),
            "torus2d/mesh2d `[x, y]`, torus3d `[x, y, z]`; each 2..65536"),
        quantity("cluster.network[].link_bandwidth", Dimension::BytesPerSecond, "GBps", kMinByteRate, kHuge, required(),
            "per link, per direction"),
        number("cluster.network[].protocol_efficiency", 0.01, 1.0, value("1"),
            "share of link_bandwidth that carries data (packet headers and flow control take the rest): NCCL's bus "
            "bandwidth of a ring all-gather at large messages / link_bandwidth; every transfer on the dimension runs "
            "at link_bandwidth x this"),
        quantity("cluster.network[].in_network_allreduce_bandwidth", Dimension::BytesPerSecond, "GBps", kMinByteRate,
            kHuge, optional(),
            "switch only: all-reduce algorithm bandwidth (bytes / time) of in-switch reduction (NVLink SHARP, NCCL "
            "NVLS), offered beside the ring and direct algorithms; absent: none"),
        quantity("cluster.network[].latency", Dimension::Seconds, "ns", kZeroAllowed, 1.0, required(), "per hop"),
        quantity("cluster.network[].nccl_step_latency", Dimension::Seconds, "ns", kZeroAllowed, 1.0, optional(),
            "measured time of one step of NCCL's ring across this dimension at small messages (a published NCCL "
            "all-reduce profile: its per-step slope); ring steps of `collectives: nccl` take the larger of it and the "
            "path's latency, one-shot exchanges and other algorithms the path's; absent: the path's latency"),
        integer("cluster.network[].tiers", 1, 4, required(),
            "fat-tree only: switch levels (2 with the leaf-spine keys); a rail-optimized dimension has 2"),
        integer("cluster.network[].switch_radix", 2, 4096, required(), "fat-tree and rail-optimized: ports per switch"),
        number("cluster.network[].oversubscription", 1.0, 64.0, value("1"),
            "fat-tree without leaf-spine keys: down:up bandwidth ratio at every tier above the leaf (each switch "
            "splits "
            "its radix evenly between down and up)"),
        integer("cluster.network[].hosts_per_leaf", 1, 4096, derived("switch_radix - uplinks_per_leaf"),
            "leaf-spine key (2-tier fat-tree, rail-optimized): endpoints below one leaf; plus uplinks_per_leaf at most "
            "switch_radix"),
        integer("cluster.network[].uplinks_per_leaf", 1, 4096,
            derived("spines if given, else switch_radix - hosts_per_leaf if given, else switch_radix / 2"),
            "leaf-spine key: uplinks of one leaf, spread evenly over the spines"),
        integer("cluster.network[].spines", 1, 4096, derived("uplinks_per_leaf"),
            "leaf-spine key: spine switches; divides uplinks_per_leaf (uplinks_per_leaf / spines parallel cables from "
            "each leaf to each spine); every spine has a port for every such cable (of every rail)"),
        quantity("cluster.network[].uplink_bandwidth", Dimension::BytesPerSecond, "GBps", kMinByteRate, kHuge,
            derived("link_bandwidth"), "leaf-spine key: one leaf-to-spine uplink, per direction"),
        choice<Routing>("cluster.network[].routing", value("auto"),
            "how a pair's traffic is routed: static (one deterministic shortest path per pair; around failures one "
            "surviving shortest path), ecmp (even split over the shortest paths), adaptive (split over the surviving "
            "shortest paths in proportion to their bandwidth); auto = ecmp for fat-tree, else static (what NVSwitch, "
            "InfiniBand's subnet manager and dimension-order tori do; docs/resilience.md)"),
        list("faults", optional(), "degraded or failed links and NICs"),
        text("faults[].link", optional(),
            "`<dimension>:<a>-<b>`, or `<dimension>@<copy>:<a>-<b>` for another copy of a replicated dimension; give "
            "link or nic"),
        mapping("faults[].nic", optional(),
            "a degraded or failed NIC: every link of its GPUs in the scale-out dimension (give node or gpu)"),
        integer("faults[].nic.node", 0, 1 << 20, optional(),
            "node index (GPU / gpus_per_node): every NIC of the node, one per GPU"),
        integer("faults[].nic.gpu", 0, 1 << 20, optional(), "global GPU index: that GPU's NIC only"),
        text("faults[].nic.dimension", derived("the outermost dimension"),
            "the dimension whose links the NICs drive (a torus's or ring's: every link of the GPU in it)"),
        number("faults[].health", 0.0, 1.0, required(),
            "multiplies the link bandwidth; 0 = failed (traffic reroutes; a pair left without a path is an error), "
            "else at least 1e-6"),
        list("stragglers", optional(),
            "slow GPUs (clock throttling, thermal or power capping, degraded HBM); their groups wait for them"),
        integer("stragglers[].gpu", 0, 1 << 20, required(), "global GPU index, below the GPU count"),
        number(
            "stragglers[].slowdown", 1.0, 100.0, required(), "every kernel on that GPU takes this many times as long"),
    };
}

} // namespace rapid::config::schema::detail

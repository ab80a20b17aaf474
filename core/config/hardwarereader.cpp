// SPDX-License-Identifier: GPL-3.0-or-later
#include "checkedmath.h"
#include "documentreaders_p.h"
#include "linkid.h"
#include "yamlnode_p.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <set>

namespace rapid::config {

namespace {
// NVFP4 (NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference", 2025; PTX ISA
// block-scaled mma kinds): 4-bit E2M1 values, one E4M3 scale byte per block of 16 values (a per-tensor FP32 scale too).
constexpr double kNvfp4ValueBytes = 0.5;
constexpr double kNvfp4Block = 16;
// AWQ and GPTQ checkpoints (AutoAWQ's and GPTQ's default q_group_size / group_size 128): 4-bit integers with one fp16
// scale per group of 128 input channels. AWQ's 4-bit zero points (0.5 byte per group, 0.4% more) are left out.
constexpr double kInt4ValueBytes = 0.5;
constexpr double kInt4GroupScaleBytes = 2.0 / 128;
// MXFP4 (OCP Microscaling Formats specification v1.0, 2023): 4-bit E2M1 values, one 8-bit E8M0 scale per block of 32.
constexpr double kMxfp4ValueBytes = 0.5;
constexpr double kMxfp4Block = 32;
} // namespace

double bytesPerElement(Precision precision)
{
    switch (precision) {
    case Precision::Fp32:
    case Precision::Tf32:
        return 4;
    case Precision::Bf16:
    case Precision::Fp16:
        return 2;
    case Precision::Fp8:
    case Precision::Int8:
        return 1;
    case Precision::Nvfp4:
        return kNvfp4ValueBytes + 1.0 / kNvfp4Block;
    case Precision::Int4:
        return kInt4ValueBytes + kInt4GroupScaleBytes;
    case Precision::Mxfp4:
        return kMxfp4ValueBytes + 1.0 / kMxfp4Block;
    }
    return 2;
}

double packedBytesPerElement(Precision precision)
{
    return precision == Precision::Nvfp4 ? kNvfp4ValueBytes
        : precision == Precision::Int4   ? kInt4ValueBytes
        : precision == Precision::Mxfp4  ? kMxfp4ValueBytes
                                         : bytesPerElement(precision);
}

bool isWeightOnlyFormat(Precision precision)
{
    return precision == Precision::Int4 || precision == Precision::Mxfp4;
}

bool isQuantizedWeightFormat(Precision precision)
{
    return precision == Precision::Fp8 || precision == Precision::Int8 || precision == Precision::Nvfp4
        || isWeightOnlyFormat(precision);
}

const char* toString(Precision precision)
{
    return detail::enumWord(precision);
}

const char* toString(NetworkKind kind)
{
    return detail::enumWord(kind);
}

const char* toString(Routing value)
{
    return detail::enumWord(value);
}

Routing effectiveRouting(const NetworkDimension& dimension)
{
    if (dimension.routing != Routing::Auto) {
        return dimension.routing;
    }
    // fat-tree keeps the even ECMP split it always had (the ns-3 cross-checks of tests/ns3 replay those routes).
    return dimension.kind == NetworkKind::FatTree ? Routing::Ecmp : Routing::Static;
}

std::string LinkFault::describe() const
{
    if (!isNic()) {
        return linkId;
    }
    const std::string where = nicDimension.empty() ? std::string() : " (" + nicDimension + ")";
    return nicNode >= 0 ? "NICs of node " + std::to_string(nicNode) + where
                        : "NIC of GPU " + std::to_string(nicGpu) + where;
}

const char* toString(GpuArchitecture value)
{
    return detail::enumWord(value);
}

const char* toString(AttentionKernel value)
{
    return detail::enumWord(value);
}

int ClusterSpec::totalGpus() const
{
    std::int64_t total = 1;
    for (const NetworkDimension& dimension : dimensions) {
        total = saturatingProduct({ total, dimension.size });
    }
    // The hardware reader refuses more than kMaxGpus; an unchecked spec saturates instead of wrapping.
    return static_cast<int>(std::min<std::int64_t>(total, std::numeric_limits<int>::max()));
}

long long fatTreeCapacity(int tiers, int switchRadix)
{
    if (tiers < 1 || switchRadix < 2) {
        return 0;
    }
    long long capacity = switchRadix;
    for (int tier = 1; tier < tiers; ++tier) {
        capacity = saturatingProduct({ capacity, switchRadix / 2 });
    }
    return std::min<long long>(capacity, std::numeric_limits<int>::max());
}

namespace detail {

namespace {

constexpr double kMinLinkHealth = 1e-6;
constexpr const char* kTimeSuffixes[] = { "", "_ns", "_us", "_ms", "_s" };

void readTensorRates(ReadContext& context, MapReader& gpu, GpuSpec& spec)
{
    // `tensor_TFLOPs: {bf16: 312}` (numbers in TFLOP/s) or `tensor: {bf16: "312 TFLOP/s"}`.
    const bool suffixed = gpu.has("tensor_TFLOPs");
    const std::string key = suffixed || !gpu.has("tensor") ? "tensor_TFLOPs" : "tensor";
    MapReader rates = gpu.map(key, true);
    rates.setScope(SchemaScope { schema::Document::Gpu, "tensor_TFLOPs." }); // both spellings hold the same keys
    if (suffixed && gpu.has("tensor")) {
        gpu.raw("tensor");
        context.error(gpu.childPath("tensor"), gpu.node()["tensor"], "give tensor rates once, as tensor_TFLOPs");
    }
    if (!rates.valid()) {
        return;
    }
    for (const auto& [name, precision] : enumWords<Precision>()) {
        if (isWeightOnlyFormat(precision)) {
            continue; // a storage format without a tensor rate of its own (W4A16 multiplies in 16 bits)
        }
        if (!rates.has(name)) {
            rates.raw(name);
            continue;
        }
        const YAML::Node value = rates.raw(name);
        std::string why;
        std::optional<double> flops;
        if (isScalarNode(value)) {
            flops = parseQuantity(value.Scalar()
                    + (suffixed && value.Scalar().find_first_of("TGPF") == std::string::npos ? " TFLOP/s" : ""),
                Dimension::FlopsPerSecond, &why);
        } else {
            why = "expected a compute rate, got " + describeNode(value);
        }
        const schema::Key& declared = rates.schemaKey(name);
        if (flops && (!(*flops > declared.minimum) || *flops > declared.maximum)) {
            why = "value " + formatQuantity(*flops, Dimension::FlopsPerSecond) + " is out of range; expected more than "
                + formatQuantity(declared.minimum, Dimension::FlopsPerSecond);
            flops.reset();
        }
        if (!flops) {
            context.error(rates.childPath(name), value, why);
            continue;
        }
        spec.tensorFlops[static_cast<size_t>(precision)] = *flops;
    }
    rates.finish();
    if (spec.tensorPeak(Precision::Bf16) <= 0 && spec.tensorPeak(Precision::Fp16) <= 0) {
        context.error(rates.path(), rates.node(), "a GPU needs at least a bf16 or fp16 tensor rate");
    }
}

/// Whether @p map gives a time quantity @p base in any spelling (`latency: "400 ns"`, `latency_ns: 400`, ...).
bool givesTime(const MapReader& map, const std::string& base)
{
    return std::any_of(
        std::begin(kTimeSuffixes), std::end(kTimeSuffixes), [&](const char* suffix) { return map.has(base + suffix); });
}

/// The GEMM model needs both latencies or neither (an L2 miss costs the DRAM latency, a hit the L2 one), and a miss
/// passes through L2, so it cannot be faster than a hit. A latency given but out of range is reported where it is
/// read, not again here.
void checkMemoryLatencies(
    ReadContext& context, MapReader& gpu, const GpuSpec& spec, bool hbmLatencyGiven, bool l2LatencyGiven)
{
    if (hbmLatencyGiven != l2LatencyGiven) {
        const char* missing = hbmLatencyGiven ? "l2" : "hbm";
        context.error(gpu.childPath(missing), gpu.node()[missing],
            std::string("give hbm.latency_ns and l2.latency_ns together (") + missing
                + ".latency_ns is missing); the GEMM model's memory-latency bound needs both");
    } else if (spec.hbmLatencySeconds > 0 && spec.l2LatencySeconds > spec.hbmLatencySeconds) {
        context.error(gpu.childPath("l2"), gpu.node()["l2"],
            "l2.latency_ns cannot exceed hbm.latency_ns (an access that misses L2 passes through it)");
    }
}

/// Reads every mapping item of the list @p key with @p readItem (a MapReader scoped to the items' schema keys);
/// an item that is not a mapping is reported with @p expected.
template <typename ReadItem>
void readMappingItems(
    ReadContext& context, MapReader& reader, const std::string& key, const char* expected, const ReadItem& readItem)
{
    for (const auto& [path, node] : reader.list(key)) {
        MapReader item(context, node, path, SchemaScope { schema::Document::Hardware, key + "[]." });
        if (!item.valid()) {
            context.error(path, node, std::string("expected ") + expected);
            continue;
        }
        readItem(item);
    }
}

/// A NIC fault: nic: {node: N} or {gpu: G}, with an optional dimension (default the outermost).
void readNicFault(ReadContext& context, MapReader& fault, const HardwareSpec& spec, LinkFault& value)
{
    MapReader nic = fault.map("nic");
    if (!nic.valid()) {
        return;
    }
    const bool byNode = nic.has("node");
    const bool byGpu = nic.has("gpu");
    value.nicNode = byNode ? static_cast<int>(nic.integer("node", 0)) : -1;
    value.nicGpu = byGpu ? static_cast<int>(nic.integer("gpu", 0)) : -1;
    const std::string outermost = spec.cluster.dimensions.empty() ? "" : spec.cluster.dimensions.back().name;
    value.nicDimension = nic.text("dimension", outermost);
    nic.finish();
    if (byNode == byGpu) {
        context.error(nic.path(), nic.node(),
            "a NIC fault names a node (nic: {node: N}, every NIC of the node) or a GPU (nic: {gpu: G}, its NIC), "
            "exactly one of them");
        return;
    }
    const ClusterSpec& cluster = spec.cluster;
    if (cluster.dimensions.empty()) {
        return;
    }
    const int gpus = cluster.totalGpus();
    const int nodes = cluster.gpusPerNode > 0 ? gpus / cluster.gpusPerNode : gpus;
    if (byNode && value.nicNode >= nodes) {
        context.error(nic.childPath("node"), nic.raw("node"),
            "node " + std::to_string(value.nicNode) + " does not exist; the cluster has nodes 0-"
                + std::to_string(nodes - 1) + " (" + std::to_string(cluster.gpusPerNode) + " GPUs each)");
    }
    if (byGpu && value.nicGpu >= gpus) {
        context.error(nic.childPath("gpu"), nic.raw("gpu"),
            "GPU " + std::to_string(value.nicGpu) + " does not exist; the cluster has GPUs 0-"
                + std::to_string(gpus - 1));
    }
    const bool known = std::any_of(cluster.dimensions.begin(), cluster.dimensions.end(),
        [&](const NetworkDimension& dimension) { return dimension.name == value.nicDimension; });
    if (!known) {
        context.error(nic.childPath("dimension"), nic.raw("dimension"),
            "the network has no dimension \"" + value.nicDimension + "\"");
    }
}

void readFaults(ReadContext& context, MapReader& reader, HardwareSpec& spec)
{
    const char* expected = "{link: \"<dimension>:<a>-<b>\", health: 0..1} or {nic: {node: N}, health: 0..1}";
    readMappingItems(context, reader, "faults", expected, [&](MapReader& fault) {
        LinkFault value;
        const bool byLink = fault.has("link");
        const bool byNic = fault.has("nic");
        value.linkId = byLink ? fault.text("link", std::string()) : std::string();
        readNicFault(context, fault, spec, value);
        value.health = fault.number("health");
        fault.finish();
        if (byLink == byNic) {
            context.error(fault.path(), fault.node(),
                byLink ? std::string("a fault names a link or a NIC, not both")
                       : std::string("a fault names a link (link: \"<dimension>:<a>-<b>\") or a NIC (nic: {node: N} or "
                                     "{gpu: G})"));
        }
        // A link at 10^-300 of its rate is not degraded but absurd: its transfers would outlast any simulation.
        if (value.health > 0 && value.health < kMinLinkHealth) {
            context.error(fault.childPath("health"), fault.raw("health"),
                "a degraded link keeps at least 10^-6 of its bandwidth; 0 fails it");
        }
        std::string why;
        if (!value.linkId.empty() && !parseLinkId(value.linkId, spec.cluster, &why)) {
            context.error(fault.childPath("link"), fault.raw("link"), why);
        }
        spec.faults.push_back(value);
    });
}

void readStragglers(ReadContext& context, MapReader& reader, HardwareSpec& spec)
{
    const int gpus = spec.cluster.totalGpus();
    readMappingItems(context, reader, "stragglers", "{gpu: <index>, slowdown: >= 1}", [&](MapReader& straggler) {
        GpuStraggler value;
        value.gpu = static_cast<int>(straggler.integer("gpu"));
        value.slowdown = straggler.number("slowdown");
        straggler.finish();
        if (!spec.cluster.dimensions.empty() && value.gpu >= gpus) {
            context.error(straggler.childPath("gpu"), straggler.raw("gpu"),
                "GPU " + std::to_string(value.gpu) + " does not exist; the cluster has GPUs 0-"
                    + std::to_string(gpus - 1));
        }
        spec.stragglers.push_back(value);
    });
}

/// efficiency.<kernel>_forward / _backward of every concrete attention kernel.
void readAttentionEfficiencies(MapReader& efficiency, GpuSpec& spec)
{
    for (const AttentionKernel kernel : { AttentionKernel::Fa2, AttentionKernel::Fa3, AttentionKernel::Cudnn }) {
        const std::string word = toString(kernel);
        AttentionKernelEfficiency& value = spec.attentionEfficiency[static_cast<int>(kernel)];
        value.forward = efficiency.number(word + "_forward");
        value.backward = efficiency.number(word + "_backward");
    }
}

} // namespace

GpuSpec readGpu(ReadContext& context, const YAML::Node& node, const std::string& path)
{
    GpuSpec spec;
    MapReader gpu(context, node, path, SchemaScope { schema::Document::Gpu, "" });
    if (!gpu.valid()) {
        if (!node.IsDefined() || isNullNode(node)) {
            context.error(path, node, "missing GPU; expected a GPU preset name or a gpu mapping");
        }
        return spec;
    }
    spec.name = gpu.text("name");
    spec.architecture = gpu.choice<GpuArchitecture>("architecture");
    spec.smCount = static_cast<int>(gpu.integer("sm_count"));
    spec.clockHz = gpu.quantity("clock");
    spec.sustainedClockHz = gpu.quantity("sustained_clock", 0.0) /* 0 = the boost clock */;
    if (spec.sustainedClockHz > spec.clockHz && spec.clockHz > 0) {
        context.error(gpu.childPath("sustained_clock_GHz"), gpu.raw("sustained_clock_GHz"),
            "sustained_clock cannot exceed clock (the boost clock the tensor rates are quoted at)");
    }
    readTensorRates(context, gpu, spec);
    bool hbmLatencyGiven = false;
    bool l2LatencyGiven = false;
    spec.vectorFp32Flops = gpu.quantity("vector_fp32");
    {
        MapReader hbm = gpu.map("hbm");
        if (hbm.valid()) {
            spec.hbmCapacityBytes = hbm.quantity("capacity");
            spec.hbmBandwidth = hbm.quantity("bandwidth");
            hbmLatencyGiven = givesTime(hbm, "latency");
            spec.hbmLatencySeconds = hbm.quantity("latency", 0.0) /* 0 = not given */;
            hbm.finish();
        }
    }
    {
        MapReader l2 = gpu.map("l2");
        if (l2.valid()) {
            spec.l2Bytes = l2.quantity("size");
            spec.l2Bandwidth = l2.quantity("bandwidth");
            l2LatencyGiven = givesTime(l2, "latency");
            spec.l2LatencySeconds = l2.quantity("latency", 0.0) /* 0 = not given */;
            l2.finish();
        }
    }
    checkMemoryLatencies(context, gpu, spec, hbmLatencyGiven, l2LatencyGiven);
    {
        MapReader host = gpu.map("host_link");
        if (host.valid()) {
            spec.hostToDeviceBandwidth = host.quantity("to_device", 0.0) /* 0 = not given */;
            spec.deviceToHostBandwidth = host.quantity("from_device", 0.0);
            host.finish();
        }
    }
    spec.sharedMemPerSmBytes = gpu.quantity("shared_memory_per_sm");
    spec.registersPerSm = static_cast<int>(gpu.integer("registers_per_sm"));
    spec.maxThreadsPerSm = static_cast<int>(gpu.integer("max_threads_per_sm"));
    spec.kernelLaunchSeconds = gpu.quantity("kernel_launch");
    {
        MapReader efficiency = gpu.map("efficiency");
        if (efficiency.valid()) {
            spec.computeEfficiency = efficiency.number("compute");
            spec.memoryEfficiency = efficiency.number("memory");
            spec.hbmReadShare = efficiency.number("hbm_read");
            spec.hbmReadWriteShare = efficiency.number("hbm_read_write");
            spec.fp8MatmulRatio = efficiency.number("fp8_matmul_ratio");
            spec.nvfp4MatmulRatio = efficiency.number("nvfp4_matmul_ratio");
            readAttentionEfficiencies(efficiency, spec);
            efficiency.finish();
        }
    }
    {
        MapReader derate = gpu.map("derate");
        if (derate.valid()) {
            spec.hbmBandwidthScale = derate.number("hbm_bandwidth");
            spec.clockScale = derate.number("clock");
            derate.finish();
        }
    }
    {
        MapReader power = gpu.map("power");
        if (power.valid()) {
            spec.tdpWatts = power.quantity("tdp");
            spec.idleWatts = power.quantity("idle");
            spec.joulesPerFlop = power.quantity("energy_per_flop");
            spec.joulesPerHbmByte = power.quantity("energy_per_hbm_byte");
            power.finish();
            if (spec.idleWatts > spec.tdpWatts) {
                context.error(power.childPath("idle_W"), power.raw("idle_W"), "idle power cannot exceed the TDP");
            }
        }
    }
    gpu.finish();
    return spec;
}

HardwareSpec readHardware(ReadContext& context, const YAML::Node& node, const std::string& path)
{
    HardwareSpec spec;
    MapReader reader(context, node, path, SchemaScope { schema::Document::Hardware, "" });
    if (!reader.valid()) {
        if (!node.IsDefined() || isNullNode(node)) {
            context.error(path, node, "the hardware document is empty; expected a mapping with gpu and cluster");
        }
        return spec;
    }
    spec.gpu = readGpu(context, reader.raw("gpu"), reader.childPath("gpu"));
    if (!reader.has("gpu")) {
        context.error(reader.childPath("gpu"), node, "required key \"gpu\" is missing; expected a GPU preset name");
    }
    spec.name = reader.text("name", spec.gpu.name);
    MapReader cluster = reader.map("cluster");
    if (cluster.valid()) {
        spec.cluster.name = spec.name;
        spec.cluster.gpusPerNode = static_cast<int>(cluster.integer("gpus_per_node"));
        std::set<std::string> names;
        int index = 0;
        std::vector<std::pair<std::string, YAML::Node>> items;
        const size_t diagnosticsBefore = context.sink.diagnostics().size();
        for (const auto& [itemPath, item] : cluster.list("network")) {
            NetworkDimension dimension = readDimension(context, itemPath, item, index++);
            if (!names.insert(dimension.name).second) {
                context.error(
                    itemPath + ".name", item["name"], "dimension name \"" + dimension.name + "\" is used twice");
            }
            spec.cluster.dimensions.push_back(dimension);
            items.emplace_back(itemPath, item);
        }
        // A dimension that failed to read carries a stand-in size: checks of the GPU count would only echo that error
        // with a number the user never wrote.
        const bool dimensionsRead = context.sink.diagnostics().size() == diagnosticsBefore;
        cluster.finish();
        const int total = spec.cluster.totalGpus();
        for (size_t d = 0; dimensionsRead && d < items.size() && total <= kMaxGpus; ++d) {
            checkSpinePorts(context, items[d].first, items[d].second, spec.cluster.dimensions[d], total);
        }
        if (dimensionsRead && total > kMaxGpus) {
            context.error(cluster.childPath("network"), cluster.raw("network"),
                "the network holds " + std::to_string(total) + " GPUs (the product of its sizes); at most "
                    + std::to_string(kMaxGpus) + " are modelled");
        }
        if (dimensionsRead && spec.cluster.gpusPerNode > 0 && !spec.cluster.dimensions.empty()
            && total % spec.cluster.gpusPerNode != 0) {
            context.error(cluster.childPath("gpus_per_node"), cluster.raw("gpus_per_node"),
                "gpus_per_node (" + std::to_string(spec.cluster.gpusPerNode)
                    + ") must divide the GPU count of the network (" + std::to_string(total) + ")");
        }
    }
    readFaults(context, reader, spec);
    readStragglers(context, reader, spec);
    reader.finish();
    return spec;
}

} // namespace detail
} // namespace rapid::config

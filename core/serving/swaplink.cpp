// SPDX-License-Identifier: GPL-3.0-or-later
#include "swaplink.h"

#include "config/units.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rapid::serving {

const char* toString(Preemption preemption)
{
    return preemption == Preemption::Swap ? "swap" : "recompute";
}

double SwapLink::seconds(std::int64_t blocks, bool toDevice) const
{
    if (blocks <= 0) {
        return 0;
    }
    const double count = static_cast<double>(blocks);
    const double rate = toDevice ? toDeviceBytesPerSecond : fromDeviceBytesPerSecond;
    // One host thread issues the copies back to back while the copy engine works through them: the slower of the two
    // sets the pace. A KV block of one layer is a few KiB per GPU, so the submissions usually do.
    const double submission = count * copiesPerBlock * perCopySeconds;
    const double transfer = rate > 0 ? count * bytesPerBlock / rate : 0;
    return std::max(submission, transfer);
}

SwapLink swapLink(const config::Scenario& scenario, const EngineOptions& options, const KvCapacity& capacity)
{
    SwapLink link;
    if (options.preemption != Preemption::Swap) {
        return link;
    }
    const config::GpuSpec& gpu = scenario.hardware.gpu;
    if (!(gpu.hostToDeviceBandwidth > 0) || !(gpu.deviceToHostBandwidth > 0)) {
        throw std::invalid_argument("swap preemption needs the GPU's host link: the " + gpu.name
            + " preset gives no host_link.to_device_GBps and host_link.from_device_GBps");
    }
    const config::ModelSpec& model = scenario.model;
    const double groups = capacity.layout.fullGroups + capacity.layout.windowedGroups;
    // The busiest pipeline stage's layers (a draft head's too); each stage copies its own blocks at the same time.
    const int pipeline = std::max(1, scenario.run.parallelism.pp);
    const int layers = model.numLayers + options.speculative.headLayers();
    const double localLayers = std::ceil(static_cast<double>(layers) / pipeline);
    // vLLM keeps a K and a V cache tensor per layer; an MLA layer caches one latent tensor.
    const double tensorsPerLayer = model.mla ? 1.0 : 2.0;
    link.bytesPerBlock = capacity.bytesPerTokenPerGpu * options.blockSize / groups;
    link.copiesPerBlock = tensorsPerLayer * localLayers / groups;
    link.toDeviceBytesPerSecond = gpu.hostToDeviceBandwidth;
    link.fromDeviceBytesPerSecond = gpu.deviceToHostBandwidth;
    // A cudaMemcpyAsync is submitted as a kernel is: the preset's launch cost stands for it.
    link.perCopySeconds = gpu.kernelLaunchSeconds;
    link.hostBlocks = link.bytesPerBlock > 0
        ? static_cast<std::int64_t>(std::floor(options.swapSpaceBytes / link.bytesPerBlock))
        : 0;
    if (link.hostBlocks < 1) {
        throw std::invalid_argument("the swap space holds no KV-cache block: a block takes "
            + config::formatNumber(link.bytesPerBlock / 1048576.0) + " MiB per GPU, the swap space "
            + config::formatNumber(options.swapSpaceBytes / 1048576.0)
            + " MiB; a larger swap space (--swap-space, serving.swap_space_GiB)");
    }
    return link;
}

} // namespace rapid::serving

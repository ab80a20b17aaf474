// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace rapid::resilience {

/// What a category of interruptions is attributed to; the rate of each scales with the count of that component.
enum class FailureScope {
    Gpu, ///< the GPU, its HBM and SRAM, its system processor, its thermal interface, NVLink; silent data corruption
    Host, ///< the server around the GPUs: CPU, memory, SSD, power supply, chassis, maintenance
    Network, ///< NICs, switches, cables, NCCL timeouts
    Software, ///< software bugs, dependencies
};

/// One row of a published interruption table.
struct FailureCategory {
    std::string name;
    int interruptions = 0;
    FailureScope scope = FailureScope::Gpu;
};

/// A published record of a training run's unexpected interruptions.
struct FailureRecord {
    std::string source;
    double days = 0; ///< length of the observation
    int gpus = 0; ///< GPUs of the job
    std::vector<FailureCategory> categories;

    int interruptions() const;
    /// Unexpected interruptions per GPU-hour, all categories (every component's count taken as proportional to the
    /// GPU count, so a job of N GPUs sees N times this rate).
    double ratePerGpuHour() const;
};

/// The Llama 3 405B pre-training run: 419 unexpected interruptions in a 54-day snapshot on 16,384 H100 GPUs, by
/// root cause (Llama Team, "The Llama 3 Herd of Models", 2024, Table 5; 47 planned interruptions not counted).
const FailureRecord& llama3Interruptions();

/// Mean time between interruptions of a job on @p gpus GPUs at @p record's rate, in seconds.
double jobMtbfSeconds(const FailureRecord& record, int gpus);

std::string toString(FailureScope scope);

} // namespace rapid::resilience

// SPDX-License-Identifier: GPL-3.0-or-later
#include "failurerates.h"

#include <stdexcept>

namespace rapid::resilience {

int FailureRecord::interruptions() const
{
    int total = 0;
    for (const FailureCategory& category : categories) {
        total += category.interruptions;
    }
    return total;
}

double FailureRecord::ratePerGpuHour() const
{
    return interruptions() / (days * 24.0 * gpus);
}

const FailureRecord& llama3Interruptions()
{
    // Table 5 of the Llama 3 report: the counts add up to the 419 unexpected interruptions (its percentages do not
    // all match the counts; the counts are used).
    static const FailureRecord record { "Llama 3 405B pre-training, 54-day snapshot on 16,384 H100 (Llama Team, "
                                        "\"The Llama 3 Herd of Models\", 2024, Table 5)",
        54.0, 16384,
        {
            { "faulty GPU", 148, FailureScope::Gpu },
            { "GPU HBM3 memory", 72, FailureScope::Gpu },
            { "software bug", 54, FailureScope::Software },
            { "network switch/cable", 35, FailureScope::Network },
            { "host maintenance", 32, FailureScope::Host },
            { "GPU SRAM memory", 19, FailureScope::Gpu },
            { "GPU system processor", 17, FailureScope::Gpu },
            { "NIC", 7, FailureScope::Network },
            { "NCCL watchdog timeouts", 7, FailureScope::Network },
            { "silent data corruption", 6, FailureScope::Gpu },
            { "GPU thermal interface and sensor", 6, FailureScope::Gpu },
            { "SSD", 3, FailureScope::Host },
            { "power supply", 3, FailureScope::Host },
            { "server chassis", 2, FailureScope::Host },
            { "IO expansion board", 2, FailureScope::Host },
            { "dependency", 2, FailureScope::Software },
            { "CPU", 2, FailureScope::Host },
            { "system memory", 2, FailureScope::Host },
        } };
    return record;
}

double jobMtbfSeconds(const FailureRecord& record, int gpus)
{
    if (gpus < 1) {
        throw std::invalid_argument("jobMtbfSeconds: at least one GPU");
    }
    return 3600.0 / (record.ratePerGpuHour() * gpus);
}

std::string toString(FailureScope scope)
{
    switch (scope) {
    case FailureScope::Gpu:
        return "GPU";
    case FailureScope::Host:
        return "host";
    case FailureScope::Network:
        return "network";
    case FailureScope::Software:
        return "software";
    }
    return "?";
}

} // namespace rapid::resilience

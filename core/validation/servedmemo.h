// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "validation/performancedatasets.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rapid::validation {

/// What one served case predicted: the mean TTFT and inter-token latency of its closed loop, seconds.
struct ServedPrediction {
    double ttft = 0;
    double itl = 0;
};

/// The closed loops `rapid validate` has served, by what they were asked: the TTFT and ITL views of a serving dataset
/// (aiconfigurator-ttft and -tpot, nim-served-ttft and -itl) read the same rows, and one simulation answers both.
/// A case matches another when everything its simulation reads is equal: presets, overrides, clients, requests per
/// client and engine options (never its label or measurement). Safe to use from several threads at once.
class ServedMemo {
public:
    std::optional<ServedPrediction> find(const ValidationCase& c) const;
    void store(const ValidationCase& c, const ServedPrediction& prediction);
    /// Closed loops answered from the memo so far.
    int hits() const;

private:
    struct Entry {
        ValidationCase inputs;
        ServedPrediction prediction;
    };
    static std::string keyOf(const ValidationCase& c);

    mutable std::mutex m_mutex;
    std::map<std::string, std::vector<Entry>> m_entries; ///< by keyOf; the engine options compared within
    mutable int m_hits = 0;
};

} // namespace rapid::validation

// SPDX-License-Identifier: GPL-3.0-or-later
#include "servedmemo.h"

namespace rapid::validation {

namespace {

bool sameInputs(const ValidationCase& a, const ValidationCase& b)
{
    return a.model == b.model && a.hardware == b.hardware && a.run == b.run && a.overrides == b.overrides
        && a.concurrency == b.concurrency && a.requestsPerClient == b.requestsPerClient && a.engine == b.engine;
}

} // namespace

std::string ServedMemo::keyOf(const ValidationCase& c)
{
    // Fields joined by a byte no preset name or override contains; the engine options are compared in full after.
    std::string key = c.model + '\x1f' + c.hardware + '\x1f' + c.run + '\x1f' + std::to_string(c.concurrency) + '\x1f'
        + std::to_string(c.requestsPerClient);
    for (const std::string& override : c.overrides) {
        key += '\x1f' + override;
    }
    return key;
}

std::optional<ServedPrediction> ServedMemo::find(const ValidationCase& c) const
{
    const std::string key = keyOf(c);
    const std::lock_guard lock(m_mutex);
    const auto bucket = m_entries.find(key);
    if (bucket == m_entries.end()) {
        return std::nullopt;
    }
    for (const Entry& entry : bucket->second) {
        if (sameInputs(entry.inputs, c)) {
            ++m_hits;
            return entry.prediction;
        }
    }
    return std::nullopt;
}

void ServedMemo::store(const ValidationCase& c, const ServedPrediction& prediction)
{
    const std::string key = keyOf(c);
    const std::lock_guard lock(m_mutex);
    std::vector<Entry>& bucket = m_entries[key];
    for (const Entry& entry : bucket) {
        if (sameInputs(entry.inputs, c)) {
            return; // another thread served the same loop meanwhile: same inputs, same answer
        }
    }
    bucket.push_back({ c, prediction });
}

int ServedMemo::hits() const
{
    const std::lock_guard lock(m_mutex);
    return m_hits;
}

} // namespace rapid::validation

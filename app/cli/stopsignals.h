// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>

namespace rapid::cli {

/// While alive, SIGINT and SIGTERM raise a flag instead of ending the process, so a long command can stop cleanly and
/// complete its output; the first one restores the default disposition, so a second one ends the process at once.
/// A signal that was ignored when the process started (a background job of a non-interactive shell, nohup) stays
/// ignored. The handler only stores to lock-free atomics (async-signal-safe). One instance at a time.
class StopSignals {
public:
    StopSignals();
    ~StopSignals(); ///< restores the dispositions found at construction
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    /// Raised by the first SIGINT or SIGTERM (for SweepOptions::stop).
    const std::atomic<bool>& flag() const;
    /// The signal that raised the flag, 0 while none has.
    int caught() const;
    /// The exit status of a process stopped by @p signal: 128 + its number (130 for SIGINT, 143 for SIGTERM).
    static int exitCode(int signal) { return 128 + signal; }
    /// "SIGINT", "SIGTERM".
    static const char* name(int signal);
};

} // namespace rapid::cli

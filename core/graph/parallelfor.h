// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace rapid::graph {

/// Runs @p work(i) for every i in [0, @p count) on up to @p threads threads (0: one per core; the calling thread is
/// one of them), each thread taking the next index not yet taken. Waits for all; if any call threw, rethrows the
/// exception of the lowest index. For the per-rank loops of trace sets, whose ranks are independent.
template <typename Work> void parallelFor(std::size_t count, unsigned threads, const Work& work)
{
    if (threads == 0) {
        threads = std::max(1u, std::thread::hardware_concurrency());
    }
    std::vector<std::exception_ptr> errors(count);
    std::atomic<std::size_t> next { 0 };
    auto run = [&]() {
        for (std::size_t i = next++; i < count; i = next++) {
            try {
                work(i);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> workers;
    for (unsigned t = 1; t < threads && t < count; ++t) {
        workers.emplace_back(run);
    }
    run();
    for (std::thread& worker : workers) {
        worker.join();
    }
    for (const std::exception_ptr& error : errors) {
        if (error) {
            std::rethrow_exception(error);
        }
    }
}

} // namespace rapid::graph

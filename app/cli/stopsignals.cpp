// SPDX-License-Identifier: GPL-3.0-or-later
#include "stopsignals.h"

#include <csignal>

#include <signal.h>

namespace rapid::cli {

namespace {

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
    "a signal handler may only touch lock-free atomics");

std::atomic<bool> g_stop { false };
std::atomic<int> g_signal { 0 };
struct sigaction g_previous[2];
bool g_installed[2] = { false, false };
constexpr int kSignals[2] = { SIGINT, SIGTERM };

void onStopSignal(int signal)
{
    int none = 0;
    g_signal.compare_exchange_strong(none, signal);
    g_stop.store(true);
}

} // namespace

StopSignals::StopSignals()
{
    g_stop.store(false);
    g_signal.store(0);
    struct sigaction action { };
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    // SA_RESETHAND: the next signal of the same kind takes the default action (ends the process).
    action.sa_flags = SA_RESTART | SA_RESETHAND;
    for (int i = 0; i < 2; ++i) {
        // A signal ignored when we started stays ignored (a background job of a non-interactive shell, nohup).
        sigaction(kSignals[i], nullptr, &g_previous[i]);
        g_installed[i] = g_previous[i].sa_handler != SIG_IGN;
        if (g_installed[i]) {
            sigaction(kSignals[i], &action, nullptr);
        }
    }
}

StopSignals::~StopSignals()
{
    for (int i = 0; i < 2; ++i) {
        if (g_installed[i]) {
            sigaction(kSignals[i], &g_previous[i], nullptr);
        }
    }
}

const std::atomic<bool>& StopSignals::flag() const
{
    return g_stop;
}

int StopSignals::caught() const
{
    return g_signal.load();
}

const char* StopSignals::name(int signal)
{
    return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

} // namespace rapid::cli

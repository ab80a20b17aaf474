// SPDX-License-Identifier: GPL-3.0-or-later
#include "simtime.h"

#include "config/diagnostic.h"

#include <cstdio>
#include <string>

namespace rapid::sim {

void throwBeyondTimeCeiling(double seconds, const char* what)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.3g s", seconds);
    throw config::InputLimitError(std::string(what) + " of " + text
        + " is beyond the simulated-time ceiling of 10^17 ns (3.2 years); the inputs ask for an absurd amount of "
          "work or a rate near zero");
}

} // namespace rapid::sim

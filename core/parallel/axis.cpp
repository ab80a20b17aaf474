// SPDX-License-Identifier: GPL-3.0-or-later
#include "axis.h"

namespace rapid::parallel {

const char* toString(Axis axis)
{
    switch (axis) {
    case Axis::Tp:
        return "tp";
    case Axis::Cp:
        return "cp";
    case Axis::Dp:
        return "dp";
    case Axis::Pp:
        return "pp";
    case Axis::Ep:
        return "ep";
    }
    return "?";
}

std::optional<Axis> parseAxis(std::string_view name)
{
    for (Axis axis : { Axis::Tp, Axis::Cp, Axis::Dp, Axis::Pp, Axis::Ep }) {
        if (name == toString(axis)) {
            return axis;
        }
    }
    return std::nullopt;
}

} // namespace rapid::parallel

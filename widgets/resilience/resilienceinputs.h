// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>
#include <vector>

namespace rapid::widgets {

/// The bounds of one list field of the Resilience tab ("0, 0.5" for the health values).
struct NumberListRule {
    double minimum = 0;
    double maximum = 1;
    bool minimumIncluded = true;
    bool maximumIncluded = true;
    bool wholeNumbers = false;
    int maxCount = 12; ///< each value is a row of the study, a curve of the chart
};

/// Parses a comma-separated list of numbers checked against @p rule: the values in the order typed (duplicates
/// dropped), or nullopt with @p problem saying what is wrong in words the field's inline message can show.
std::optional<std::vector<double>> parseNumberList(const QString& text, const NumberListRule& rule, QString* problem);

} // namespace rapid::widgets

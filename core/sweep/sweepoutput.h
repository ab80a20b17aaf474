// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sweep/sweeprunner.h"

#include <iosfwd>
#include <string>

namespace rapid::sweep {

/// The label of @p row's value on axis @p axis ("4", "tp2 pp2 dp16").
const std::string& valueLabel(const SweepResult& result, const SweepRow& row, size_t axis);

/// Every point as CSV: index, one column per axis, status, the figures and the message (docs/json-output.md lists
/// the columns). `rapid sweep --csv` and the workbench's Export CSV write this.
void writeSweepCsv(std::ostream& out, const SweepResult& result);

/// Every point as JSON (docs/json-output.md): `rapid sweep --json`.
void writeSweepJson(std::ostream& out, const SweepResult& result);

} // namespace rapid::sweep

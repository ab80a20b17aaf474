// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sweep/sweeprunner.h"

#include <iosfwd>
#include <string>

namespace rapid::sweep {

/// The label of @p row's value on axis @p axis ("4", "tp2 pp2 dp16").
const std::string& valueLabel(const SweepSpace& space, const SweepRow& row, size_t axis);
const std::string& valueLabel(const SweepResult& result, const SweepRow& row, size_t axis);

/// The CSV of a sweep written as its rows finish (docs/json-output.md lists the columns): header() before the sweep,
/// row() for each point in index order, finish() after it — a last line `# interrupted after N of M points` when the
/// sweep was cancelled, nothing otherwise. No Pareto column: the front is known only at the end.
class SweepCsvWriter {
public:
    SweepCsvWriter(std::ostream& out, const SweepSpace& space);
    void header();
    void row(const SweepRow& row);
    void finish(const SweepResult& result);

private:
    std::ostream& m_out;
    const SweepSpace& m_space;
};

/// The JSON document of a sweep written as its rows finish (docs/json-output.md): begin() writes `points` and `axes`
/// and opens `rows`, row() adds one per point in index order (one line each), finish() closes the array and adds
/// `seconds`, `interrupted`, `cancelled`, `counts` and `pareto_front`. Non-finite numbers are refused
/// (report::NonFiniteJson) as in every JSON document of the project.
class SweepJsonWriter {
public:
    SweepJsonWriter(std::ostream& out, const SweepSpace& space);
    void begin();
    void row(const SweepRow& row);
    void finish(const SweepResult& result);

private:
    std::ostream& m_out;
    const SweepSpace& m_space;
    bool m_first = true;
};

/// Every row of @p result (kept by runSweep) through SweepCsvWriter: the workbench's Export CSV.
void writeSweepCsv(std::ostream& out, const SweepResult& result);

/// Every row of @p result through SweepJsonWriter.
void writeSweepJson(std::ostream& out, const SweepResult& result);

} // namespace rapid::sweep

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace rapid::cli {

/// `rapid validate`'s GEMM section: the 48 Nsight Compute GEMMs of shared/validation/gemm on the A100 preset, their
/// mean absolute error over every row (the bar, 12%) and over the matrix rows; every row with --verbose, the CSV of
/// every row to @p csvPath. Returns whether the bar is met; throws std::runtime_error when the file is missing.
bool validateGemmDataset(
    const std::string& sharedDir, bool verbose, const std::optional<std::string>& csvPath, std::ostream& out);

} // namespace rapid::cli

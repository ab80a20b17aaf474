// SPDX-License-Identifier: GPL-3.0-or-later
// lint_function_length: no function over 120 lines and no .cpp over 600 lines under the folders given (core/ and
// app/), so that every function can be read in one sitting. Prints each offender as file:line; exit 1 if any.
// Usage: check_function_length ROOT FOLDER...
#include "functionlength.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

constexpr int kMaxFunctionLines = 120;
constexpr int kMaxSourceLines = 600;

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::cerr << "usage: check_function_length ROOT FOLDER...\n";
        return 2;
    }
    const std::filesystem::path root = argv[1];
    int offenders = 0;
    int files = 0;
    for (int a = 2; a < argc; ++a) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root / argv[a])) {
            const std::string extension = entry.path().extension().string();
            if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".h")) {
                continue;
            }
            std::ifstream in(entry.path());
            std::stringstream text;
            text << in.rdbuf();
            const std::string source = text.str();
            const std::string relative = std::filesystem::relative(entry.path(), root).string();
            ++files;
            const auto lines = static_cast<int>(std::count(source.begin(), source.end(), '\n'));
            if (extension == ".cpp" && lines > kMaxSourceLines) {
                std::cout << relative << ":1: " << lines << " lines (limit " << kMaxSourceLines << " per .cpp)\n";
                ++offenders;
            }
            for (const rapid::lint::FunctionSpan& function : rapid::lint::findFunctions(source)) {
                if (function.lines() > kMaxFunctionLines) {
                    std::cout << relative << ":" << function.firstLine << ": function '" << function.name << "' is "
                              << function.lines() << " lines (limit " << kMaxFunctionLines << ")\n";
                    ++offenders;
                }
            }
        }
    }
    std::cout << files << " files checked, " << offenders << " over the limits\n";
    return offenders == 0 ? 0 : 1;
}

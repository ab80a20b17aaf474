// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rapid::cli {

/// A usage mistake on the command line (unknown option, missing value); main prints it with the command's help.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Options of one subcommand: "--name value", "--name=value", repeatable options and flags.
class Arguments {
public:
    struct Option {
        std::string name;
        std::string valueName; ///< empty for a flag
        std::string help;
        bool repeatable = false;
    };

    Arguments(std::string command, std::string summary, std::vector<Option> options, std::string positionalName = {});

    /// Parses argv after the subcommand. Throws UsageError.
    void parse(const std::vector<std::string>& args);

    bool helpRequested() const { return m_help; }
    bool flag(const std::string& name) const { return m_values.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::vector<std::string> values(const std::string& name) const;
    const std::vector<std::string>& positional() const { return m_positional; }
    std::string help() const;

    /// Gives option @p name the value @p value unless the command line did (defaults read from a file). Throws
    /// std::logic_error for a name that is not an option.
    void setDefault(const std::string& name, const std::string& value);

    /// A required option's value, or UsageError naming it.
    std::string required(const std::string& name) const;
    long long integer(const std::string& name, long long fallback) const;

private:
    std::string m_command;
    std::string m_summary;
    std::vector<Option> m_options;
    std::string m_positionalName;
    std::map<std::string, std::vector<std::string>> m_values;
    std::vector<std::string> m_positional;
    bool m_help = false;
};

} // namespace rapid::cli

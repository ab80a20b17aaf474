// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace rapid::cli {

namespace {

/// "--name" (a letter after the dashes) is an option, never a value: a value that starts with "--" is written
/// --option=VALUE. "--" alone and negative numbers ("-5") stay values.
bool isOptionWord(const std::string& word)
{
    return word.size() > 2 && word.compare(0, 2, "--") == 0 && std::isalpha(static_cast<unsigned char>(word[2]));
}

} // namespace

Arguments::Arguments(std::string command, std::string summary, std::vector<Option> options, std::string positionalName)
    : m_command(std::move(command))
    , m_summary(std::move(summary))
    , m_options(std::move(options))
    , m_positionalName(std::move(positionalName))
{
}

void Arguments::parse(const std::vector<std::string>& args)
{
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "-h" || arg == "--help") {
            m_help = true;
            continue;
        }
        if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
            if (m_positionalName.empty()) {
                throw UsageError("unexpected argument \"" + arg + "\"");
            }
            m_positional.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2);
        std::optional<std::string> inlineValue;
        if (const size_t equals = name.find('='); equals != std::string::npos) {
            inlineValue = name.substr(equals + 1);
            name = name.substr(0, equals);
        }
        const Option* option = nullptr;
        for (const Option& candidate : m_options) {
            if (candidate.name == name) {
                option = &candidate;
            }
        }
        if (!option) {
            throw UsageError("unknown option --" + name + " for \"rapid " + m_command + "\"");
        }
        if (option->valueName.empty()) {
            if (inlineValue) {
                throw UsageError("--" + name + " takes no value");
            }
            m_values[name].push_back({});
            continue;
        }
        std::string value;
        if (inlineValue) {
            value = *inlineValue;
        } else if (i + 1 < args.size() && !isOptionWord(args[i + 1])) {
            value = args[++i];
        } else if (i + 1 < args.size()) {
            // "--splits --top 5" would take "--top" as the axes and "5" as a workspace: name the slip instead.
            throw UsageError("--" + name + " needs a value (" + option->valueName + ") before the option " + args[i + 1]
                + " (a value that starts with -- goes as --" + name + "=VALUE)");
        } else {
            throw UsageError("--" + name + " needs a value (" + option->valueName + ")");
        }
        if (!option->repeatable && m_values.count(name)) {
            throw UsageError("--" + name + " is given twice");
        }
        m_values[name].push_back(value);
    }
}

void Arguments::setDefault(const std::string& name, const std::string& value)
{
    const bool known
        = std::any_of(m_options.begin(), m_options.end(), [&](const Option& option) { return option.name == name; });
    if (!known) {
        throw std::logic_error("no option --" + name);
    }
    if (m_values.count(name) == 0) {
        m_values[name] = { value };
    }
}

std::optional<std::string> Arguments::value(const std::string& name) const
{
    auto found = m_values.find(name);
    if (found == m_values.end() || found->second.empty()) {
        return std::nullopt;
    }
    return found->second.back();
}

std::vector<std::string> Arguments::values(const std::string& name) const
{
    auto found = m_values.find(name);
    return found == m_values.end() ? std::vector<std::string> {} : found->second;
}

std::string Arguments::required(const std::string& name) const
{
    auto found = value(name);
    if (!found) {
        throw UsageError("missing --" + name);
    }
    return *found;
}

long long Arguments::integer(const std::string& name, long long fallback) const
{
    auto text = value(name);
    if (!text) {
        return fallback;
    }
    long long result = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), result);
    if (ec != std::errc() || ptr != text->data() + text->size()) {
        throw UsageError("--" + name + " expects a whole number, got \"" + *text + "\"");
    }
    return result;
}

std::string Arguments::help() const
{
    std::string text = "usage: rapid " + m_command + " [options]";
    if (!m_positionalName.empty()) {
        text += " " + m_positionalName;
    }
    text += "\n\n" + m_summary + "\n\noptions:\n";
    for (const Option& option : m_options) {
        std::string left = "  --" + option.name + (option.valueName.empty() ? "" : " " + option.valueName);
        if (left.size() < 30) {
            left.resize(30, ' ');
        } else {
            left += "\n" + std::string(30, ' ');
        }
        text += left + option.help + (option.repeatable ? " (repeatable)" : "") + "\n";
    }
    text += "  -h, --help                  this help\n";
    return text;
}

} // namespace rapid::cli

// SPDX-License-Identifier: GPL-3.0-or-later
#include "yamlnode_p.h"
#include "yamlreader_p.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace rapid::config::detail {

namespace {

bool startsWithPath(const std::string& path, const std::string& prefix)
{
    if (path.size() < prefix.size() || path.compare(0, prefix.size(), prefix) != 0) {
        return false;
    }
    return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

std::string lower(std::string text)
{
    std::transform(
        text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            const size_t cost = std::tolower(static_cast<unsigned char>(a[i - 1]))
                    == std::tolower(static_cast<unsigned char>(b[j - 1]))
                ? 0
                : 1;
            row[j] = std::min({ row[j] + 1, row[j - 1] + 1, diagonal + cost });
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string joinQuoted(const std::vector<std::string>& words)
{
    std::string text;
    for (size_t i = 0; i < words.size(); ++i) {
        if (i > 0) {
            text += i + 1 == words.size() ? " or " : ", ";
        }
        text += words[i];
    }
    return text;
}

std::optional<std::int64_t> parseInteger(const std::string& text)
{
    std::int64_t value = 0;
    const char* begin = text.data();
    const char* end = begin + text.size();
    if (begin != end && *begin == '+') {
        ++begin;
    }
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || begin == end) {
        return std::nullopt;
    }
    return value;
}

std::optional<double> parseNumber(const std::string& text)
{
    double value = 0;
    const char* begin = text.data();
    const char* end = begin + text.size();
    if (begin != end && *begin == '+') {
        ++begin;
    }
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || begin == end || !isRepresentable(value)) {
        return std::nullopt;
    }
    return value;
}

} // namespace

SourceLocation Origins::locate(const std::string& keyPath, const YAML::Node& node) const
{
    // The last override that wrote the key (or a mapping above it) set the value in effect: later ones replace earlier.
    for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
        if (startsWithPath(keyPath, it->first)) {
            return it->second;
        }
    }
    SourceLocation location;
    location.source = defaultSource;
    size_t longest = 0;
    for (const auto& [prefix, source] : subtreeSources) {
        if (prefix.size() >= longest && startsWithPath(keyPath, prefix)) {
            longest = prefix.size();
            location.source = source;
        }
    }
    if (node.IsDefined()) {
        const YAML::Mark mark = node.Mark();
        if (!mark.is_null()) {
            location.line = mark.line + 1;
            location.column = mark.column + 1;
        }
    }
    return location;
}

std::string describeNode(const YAML::Node& node)
{
    if (!node.IsDefined()) {
        return "nothing";
    }
    switch (node.Type()) {
    case YAML::NodeType::Null:
        return "nothing";
    case YAML::NodeType::Scalar: {
        std::string text = node.Scalar();
        if (text.size() > 40) {
            text = text.substr(0, 37) + "...";
        }
        return "\"" + text + "\"";
    }
    case YAML::NodeType::Sequence:
        return "a list";
    case YAML::NodeType::Map:
        return "a mapping";
    case YAML::NodeType::Undefined:
        break;
    }
    return "nothing";
}

std::optional<std::int64_t> readInteger(
    ReadContext& context, const std::string& path, const YAML::Node& node, std::int64_t min, std::int64_t max)
{
    std::optional<std::int64_t> value;
    if (isScalarNode(node)) {
        value = parseInteger(node.Scalar());
    }
    const std::string range = max == INT64_MAX ? "at least " + std::to_string(min)
                                               : "from " + std::to_string(min) + " to " + std::to_string(max);
    if (!value) {
        context.error(path, node, "expected a whole number " + range + ", got " + describeNode(node));
        return std::nullopt;
    }
    if (*value < min || *value > max) {
        context.error(path, node, "expected a whole number " + range + ", got " + std::to_string(*value));
        return std::nullopt;
    }
    return value;
}

MapReader::MapReader(ReadContext& context, YAML::Node node, std::string path, std::optional<SchemaScope> scope)
    : m_context(context)
    , m_node(std::move(node))
    , m_path(std::move(path))
    , m_scope(std::move(scope))
{
    if (!m_node.IsDefined()) {
        return;
    }
    if (!isMapNode(m_node)) {
        if (!isNullNode(m_node)) {
            m_context.error(m_path, m_node, "expected a mapping of keys to values, got " + describeNode(m_node));
        }
        return;
    }
    m_valid = true;
    std::set<std::string> seen;
    for (auto it = m_node.begin(); it != m_node.end(); ++it) {
        const YAML::Node key = it->first; // a copy: the iterator hands out a temporary pair
        if (!isScalarNode(key)) {
            m_context.error(m_path, key, "keys must be plain words, got " + describeNode(key));
            continue;
        }
        const std::string name = key.Scalar();
        if (!seen.insert(name).second) {
            m_context.error(childPath(name), key, "key \"" + name + "\" is given twice");
            continue;
        }
        m_keys.push_back({ name, key, it->second });
        m_context.locations.record(childPath(name), m_context.origins.locate(childPath(name), it->second));
    }
}

bool MapReader::has(const std::string& key) const
{
    return std::any_of(m_keys.begin(), m_keys.end(), [&](const Entry& entry) { return entry.name == key; });
}

YAML::Node MapReader::valueOf(const std::string& key)
{
    for (const Entry& entry : m_keys) {
        if (entry.name == key) {
            return entry.value;
        }
    }
    return YAML::Node(YAML::NodeType::Undefined);
}

void MapReader::record(const std::string& key)
{
    checkDeclared(key);
    m_known.insert(key);
}

void MapReader::missing(const std::string& key, const std::string& what)
{
    // A misspelt key ("num_layer") is reported once, by finish(), as unknown with the right spelling suggested.
    for (const Entry& entry : m_keys) {
        if (entry.name != key && editDistance(entry.name, key) <= 2) {
            return;
        }
    }
    m_context.error(childPath(key), m_node, "required key \"" + key + "\" is missing; expected " + what);
}

YAML::Node MapReader::raw(const std::string& key)
{
    record(key);
    return valueOf(key);
}

std::string MapReader::text(const std::string& key, std::optional<std::string> fallback)
{
    record(key);
    const YAML::Node value = valueOf(key);
    if (!value.IsDefined() || isNullNode(value)) {
        if (!fallback) {
            missing(key, "a text value");
            return {};
        }
        return *fallback;
    }
    if (!isScalarNode(value)) {
        m_context.error(childPath(key), value, "expected a text value, got " + describeNode(value));
        return fallback.value_or(std::string());
    }
    return value.Scalar();
}

std::int64_t MapReader::integer(
    const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min, std::int64_t max)
{
    record(key);
    const YAML::Node value = valueOf(key);
    if (!value.IsDefined() || isNullNode(value)) {
        if (!fallback) {
            missing(key, "a whole number");
            return min;
        }
        return *fallback;
    }
    return readInteger(m_context, childPath(key), value, min, max).value_or(fallback.value_or(min));
}

double MapReader::number(const std::string& key, std::optional<double> fallback, double min, double max)
{
    record(key);
    const YAML::Node value = valueOf(key);
    if (!value.IsDefined() || isNullNode(value)) {
        if (!fallback) {
            missing(key, "a number");
            return min;
        }
        return *fallback;
    }
    std::optional<double> parsed;
    if (isScalarNode(value)) {
        parsed = parseNumber(value.Scalar());
    }
    if (!parsed || *parsed < min || *parsed > max) {
        m_context.error(childPath(key), value,
            "expected a number from " + formatNumber(min) + " to " + formatNumber(max) + ", got "
                + describeNode(value));
        return fallback.value_or(min);
    }
    return *parsed;
}

bool MapReader::boolean(const std::string& key, std::optional<bool> fallback)
{
    record(key);
    const YAML::Node value = valueOf(key);
    if (!value.IsDefined() || isNullNode(value)) {
        if (!fallback) {
            missing(key, "true or false");
            return false;
        }
        return *fallback;
    }
    if (isScalarNode(value)) {
        const std::string word = lower(value.Scalar());
        if (word == "true" || word == "yes" || word == "on") {
            return true;
        }
        if (word == "false" || word == "no" || word == "off") {
            return false;
        }
    }
    m_context.error(childPath(key), value, "expected true or false, got " + describeNode(value));
    return fallback.value_or(false);
}

int MapReader::choiceIndex(const std::string& key, const std::vector<std::string>& names, bool optional)
{
    record(key);
    const YAML::Node value = valueOf(key);
    if (!value.IsDefined() || isNullNode(value)) {
        if (!optional) {
            missing(key, "one of " + joinQuoted(names));
        }
        return -1;
    }
    if (isScalarNode(value)) {
        const std::string word = lower(value.Scalar());
        for (size_t i = 0; i < names.size(); ++i) {
            std::string alias = names[i];
            std::replace(alias.begin(), alias.end(), '-', '_');
            std::string wordAlias = word;
            std::replace(wordAlias.begin(), wordAlias.end(), '-', '_');
            if (word == names[i] || wordAlias == alias) {
                return static_cast<int>(i);
            }
        }
    }
    m_context.error(childPath(key), value, "expected one of " + joinQuoted(names) + ", got " + describeNode(value));
    return -1;
}

double MapReader::quantity(
    const std::string& base, Dimension dimension, std::optional<double> fallback, double minExclusive, double max)
{
    // Find every spelling of this quantity the document uses: `base` (unit string) or `base_<unit>`.
    if (m_scope) {
        schemaKey(base);
    }
    std::vector<std::pair<std::string, const KeyUnit*>> spellings;
    if (has(base)) {
        spellings.emplace_back(base, nullptr);
    }
    for (const KeyUnit& unit : keyUnits()) {
        if (unit.dimension == dimension && has(base + unit.suffix)) {
            spellings.emplace_back(base + unit.suffix, &unit);
        }
    }
    m_known.insert(base);
    for (const KeyUnit& unit : keyUnits()) {
        if (unit.dimension == dimension) {
            m_known.insert(base + unit.suffix);
        }
    }
    if (spellings.empty()) {
        if (!fallback) {
            missing(base,
                "e.g. " + base + "_" + std::string(keyUnitExample(dimension)) + " or " + base + ": "
                    + describeDimension(dimension).substr(describeDimension(dimension).find('"')));
            return 0;
        }
        return *fallback;
    }
    if (spellings.size() > 1) {
        m_context.error(childPath(spellings[1].first), valueOf(spellings[1].first),
            "\"" + spellings[0].first + "\" and \"" + spellings[1].first + "\" give the same quantity twice; keep one");
    }
    const auto& [key, unit] = spellings.front();
    const YAML::Node value = valueOf(key);
    const std::string path = childPath(key);
    std::optional<double> result;
    if (!isScalarNode(value)) {
        m_context.error(path, value, "expected " + describeDimension(dimension) + ", got " + describeNode(value));
        return fallback.value_or(0);
    }
    if (auto plain = parseNumber(value.Scalar())) {
        if (!unit) {
            m_context.error(path, value,
                "\"" + value.Scalar() + "\" has no unit; write " + base + "_" + std::string(keyUnitExample(dimension))
                    + ": " + value.Scalar() + " or give " + describeDimension(dimension));
            return fallback.value_or(0);
        }
        result = *plain * unit->scale;
        if (!isRepresentable(*result)) {
            m_context.error(path, value,
                "\"" + value.Scalar() + "\" is beyond the range of numbers (1e-300 to 1e300 in base units)");
            return fallback.value_or(0);
        }
    } else {
        std::string why;
        result = parseQuantity(value.Scalar(), dimension, &why);
        if (!result) {
            m_context.error(path, value, why);
            return fallback.value_or(0);
        }
    }
    if (!(*result > minExclusive) || *result > max) {
        // A lower bound just below zero is how a schema admits zero; say so rather than print the tiny bound.
        const std::string lower = minExclusive < 0 && minExclusive > -1e-20
            ? "at least " + formatQuantity(0, dimension)
            : "more than " + formatQuantity(minExclusive, dimension);
        m_context.error(path, value,
            "value " + formatQuantity(*result, dimension) + " is out of range; expected " + lower + " and at most "
                + formatQuantity(max, dimension));
        return fallback.value_or(0);
    }
    return *result;
}

MapReader MapReader::map(const std::string& key, bool required)
{
    record(key);
    const YAML::Node value = valueOf(key);
    if ((!value.IsDefined() || isNullNode(value)) && required) {
        missing(key, "a mapping");
    }
    return MapReader(m_context, value, childPath(key), childScope(key));
}

std::vector<std::pair<std::string, YAML::Node>> MapReader::list(const std::string& key, bool required)
{
    record(key);
    std::vector<std::pair<std::string, YAML::Node>> items;
    const YAML::Node value = valueOf(key);
    if (!value.IsDefined() || isNullNode(value)) {
        if (required) {
            missing(key, "a list");
        }
        return items;
    }
    if (!isSequenceNode(value)) {
        m_context.error(childPath(key), value, "expected a list, got " + describeNode(value));
        return items;
    }
    for (size_t i = 0; i < value.size(); ++i) {
        items.emplace_back(childPath(key) + '[' + std::to_string(i) + ']', value[i]);
    }
    return items;
}

void MapReader::finish()
{
    for (const Entry& entry : m_keys) {
        const std::string& name = entry.name;
        if (m_known.count(name)) {
            continue;
        }
        std::string message = "unknown key \"" + name + "\"";
        std::vector<std::string> nearest;
        size_t bestDistance = 4;
        for (const std::string& known : m_known) {
            const size_t distance = editDistance(name, known);
            if (distance < bestDistance) {
                bestDistance = distance;
                nearest.clear();
            }
            if (distance == bestDistance) {
                nearest.push_back("\"" + known + "\"");
            }
        }
        if (!nearest.empty()) {
            message += "; did you mean " + joinQuoted(nearest) + "?";
        } else {
            std::vector<std::string> allowed;
            for (const std::string& known : m_known) {
                // Show one spelling per quantity: the plain base name stands for all its unit suffixes.
                if (known.find('_') == std::string::npos || !m_known.count(known.substr(0, known.rfind('_')))) {
                    allowed.push_back(known);
                }
            }
            message += "; expected one of " + joinQuoted(allowed);
        }
        m_context.error(childPath(name), entry.key, message);
    }
}

} // namespace rapid::config::detail

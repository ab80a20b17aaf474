// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/config: short constructors for schema keys, so each document's table reads as one line a key.
#pragma once

#include "enumnames_p.h"
#include "schema.h"

#include <cstdint>

namespace rapid::config::schema::detail {

/// What a reader assumes when a key is absent.
struct Default {
    bool required = false;
    std::string value;
    std::string note;
};

inline Default required()
{
    return { true, {}, {} };
}
inline Default optional()
{
    return {};
}
inline Default value(std::string text)
{
    return { false, std::move(text), {} };
}
/// A default computed from other keys, described in words.
inline Default derived(std::string words)
{
    return { false, {}, std::move(words) };
}

inline Key key(std::string path, Type type, const Default& fallback, std::string doc)
{
    Key result;
    result.path = std::move(path);
    result.type = type;
    result.doc = std::move(doc);
    result.required = fallback.required;
    result.defaultValue = fallback.value;
    result.defaultNote = fallback.note;
    return result;
}

inline Key text(std::string path, const Default& fallback, std::string doc)
{
    return key(std::move(path), Type::Text, fallback, std::move(doc));
}

inline Key integer(
    std::string path, std::int64_t minimum, std::int64_t maximum, const Default& fallback, std::string doc)
{
    Key result = key(std::move(path), Type::Integer, fallback, std::move(doc));
    result.minimum = static_cast<double>(minimum);
    result.maximum = static_cast<double>(maximum);
    return result;
}

inline Key number(std::string path, double minimum, double maximum, const Default& fallback, std::string doc)
{
    Key result = key(std::move(path), Type::Number, fallback, std::move(doc));
    result.minimum = minimum;
    result.maximum = maximum;
    return result;
}

inline Key boolean(std::string path, const Default& fallback, std::string doc)
{
    return key(std::move(path), Type::Boolean, fallback, std::move(doc));
}

template <typename Enum> Key choice(std::string path, const Default& fallback, std::string doc)
{
    Key result = key(std::move(path), Type::Choice, fallback, std::move(doc));
    result.choices = config::detail::enumWordList<Enum>();
    return result;
}

/// A quantity in (minimumExclusive, maximum] SI units, written by presets with the suffix @p unit.
inline Key quantity(std::string path, Dimension dimension, std::string unit, double minimumExclusive, double maximum,
    const Default& fallback, std::string doc)
{
    Key result = key(std::move(path), Type::Quantity, fallback, std::move(doc));
    result.dimension = dimension;
    result.unit = std::move(unit);
    result.minimum = minimumExclusive;
    result.maximum = maximum;
    return result;
}

inline Key mapping(std::string path, const Default& fallback, std::string doc)
{
    return key(std::move(path), Type::Mapping, fallback, std::move(doc));
}

inline Key list(std::string path, const Default& fallback, std::string doc)
{
    return key(std::move(path), Type::List, fallback, std::move(doc));
}

std::vector<Key> modelKeys();
std::vector<Key> gpuKeys();
std::vector<Key> hardwareKeys();
std::vector<Key> runKeys();

} // namespace rapid::config::schema::detail

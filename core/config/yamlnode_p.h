// SPDX-License-Identifier: GPL-3.0-or-later
// Internal: type tests on yaml-cpp nodes that are safe on missing nodes. yaml-cpp's own IsMap()/IsScalar()/...
// throw InvalidNode when called on the result of looking up a missing key in a const node; these return false.
#pragma once

#include <yaml-cpp/yaml.h>

namespace rapid::config::detail {

inline bool isMapNode(const YAML::Node& node)
{
    return node.IsDefined() && node.IsMap();
}
inline bool isScalarNode(const YAML::Node& node)
{
    return node.IsDefined() && node.IsScalar();
}
inline bool isSequenceNode(const YAML::Node& node)
{
    return node.IsDefined() && node.IsSequence();
}
inline bool isNullNode(const YAML::Node& node)
{
    return node.IsDefined() && node.IsNull();
}

} // namespace rapid::config::detail

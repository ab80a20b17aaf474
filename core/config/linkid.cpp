// SPDX-License-Identifier: GPL-3.0-or-later
#include "linkid.h"

#include <algorithm>
#include <charconv>

namespace rapid::config {

namespace {

std::optional<int> parseIndex(std::string_view text)
{
    int value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || value < 0) {
        return std::nullopt;
    }
    return value;
}

std::optional<LinkEnd> parseEnd(std::string_view text)
{
    LinkEnd end;
    if (!text.empty() && text.front() == 's') {
        const size_t dot = text.find('.');
        if (dot == std::string_view::npos) {
            return std::nullopt;
        }
        auto tier = parseIndex(text.substr(1, dot - 1));
        auto index = parseIndex(text.substr(dot + 1));
        if (!tier || !index || *tier < 1) {
            return std::nullopt;
        }
        end.isSwitch = true;
        end.tier = *tier;
        end.index = *index;
        return end;
    }
    auto index = parseIndex(text);
    if (!index) {
        return std::nullopt;
    }
    end.index = *index;
    return end;
}

std::string formatEnd(const LinkEnd& end)
{
    return end.isSwitch ? "s" + std::to_string(end.tier) + "." + std::to_string(end.index) : std::to_string(end.index);
}

/// "<dimension>[@<copy>]:<a>-<b>" split into its dimension (with the copy as formatLinkId writes it: none for copy 0)
/// and its parsed ends.
struct LinkIdText {
    std::string dimension;
    LinkEnd a;
    LinkEnd b;
};

std::optional<LinkIdText> splitLinkIdText(std::string_view id)
{
    const size_t colon = id.find(':');
    const size_t dash = colon == std::string_view::npos ? std::string_view::npos : id.find('-', colon + 1);
    if (dash == std::string_view::npos) {
        return std::nullopt;
    }
    const auto a = parseEnd(id.substr(colon + 1, dash - colon - 1));
    const auto b = parseEnd(id.substr(dash + 1));
    if (!a || !b) {
        return std::nullopt;
    }
    std::string dimension(id.substr(0, colon));
    if (const size_t at = dimension.find('@'); at != std::string::npos) {
        const auto copy = parseIndex(std::string_view(dimension).substr(at + 1));
        if (!copy) {
            return std::nullopt;
        }
        dimension = dimension.substr(0, at) + (*copy > 0 ? "@" + std::to_string(*copy) : std::string());
    }
    return LinkIdText { dimension, *a, *b };
}

} // namespace

bool sameLinkId(const std::string& a, const std::string& b)
{
    const auto x = splitLinkIdText(a);
    const auto y = splitLinkIdText(b);
    if (!x || !y) {
        return a == b;
    }
    return x->dimension == y->dimension && ((x->a == y->a && x->b == y->b) || (x->a == y->b && x->b == y->a));
}

std::optional<LinkIdParts> parseLinkId(const std::string& text, const ClusterSpec& cluster, std::string* why)
{
    auto fail = [&](const std::string& reason) -> std::optional<LinkIdParts> {
        if (why) {
            *why = "link id \"" + text + "\": " + reason
                + "; expected \"<dimension>:<a>-<b>\" or \"<dimension>@<copy>:<a>-<b>\" such as \"ib:3-s1.0\", "
                  "\"nvlink@2:5-s1.0\" or \"torus:0-1\"";
        }
        return std::nullopt;
    };
    const size_t colon = text.find(':');
    if (colon == std::string::npos) {
        return fail("no ':' after the dimension name");
    }
    std::string dimensionName = text.substr(0, colon);
    LinkIdParts parts;
    const size_t at = dimensionName.find('@');
    if (at != std::string::npos) {
        const std::string_view copy = std::string_view(dimensionName).substr(at + 1);
        auto [ptr, ec] = std::from_chars(copy.data(), copy.data() + copy.size(), parts.replica);
        if (copy.empty() || ec != std::errc() || ptr != copy.data() + copy.size() || parts.replica < 0) {
            return fail("the copy after '@' is not a non-negative whole number");
        }
        dimensionName.resize(at);
    }
    parts.dimension = -1;
    for (size_t i = 0; i < cluster.dimensions.size(); ++i) {
        if (cluster.dimensions[i].name == dimensionName) {
            parts.dimension = static_cast<int>(i);
        }
    }
    if (parts.dimension < 0) {
        std::string names;
        for (const NetworkDimension& dimension : cluster.dimensions) {
            names += (names.empty() ? "" : ", ") + dimension.name;
        }
        return fail("no network dimension named \"" + dimensionName + "\""
            + (names.empty() ? std::string(" (the hardware has no network)") : " (dimensions: " + names + ")"));
    }
    const std::string_view ends = std::string_view(text).substr(colon + 1);
    const size_t dash = ends.find('-');
    if (dash == std::string_view::npos) {
        return fail("no '-' between the two ends");
    }
    auto a = parseEnd(ends.substr(0, dash));
    auto b = parseEnd(ends.substr(dash + 1));
    if (!a || !b) {
        return fail("an end is neither an endpoint index nor a switch s<tier>.<index>");
    }
    const NetworkDimension& dimension = cluster.dimensions[static_cast<size_t>(parts.dimension)];
    long long copies = 1;
    for (size_t i = 0; i < cluster.dimensions.size(); ++i) {
        if (static_cast<int>(i) != parts.dimension) {
            copies *= std::max(1, cluster.dimensions[i].size);
        }
    }
    if (parts.replica >= copies) {
        return fail("dimension \"" + dimensionName + "\" has " + std::to_string(copies) + " cop"
            + (copies == 1 ? "y (0)" : "ies (0.." + std::to_string(copies - 1) + ")"));
    }
    const bool switched = dimension.kind == NetworkKind::Switch || isTree(dimension.kind);
    for (const LinkEnd& end : { *a, *b }) {
        if (end.isSwitch && !switched) {
            return fail("a " + std::string(toString(dimension.kind)) + " dimension has no switches");
        }
        if (!end.isSwitch && end.index >= dimension.size) {
            return fail(
                "endpoint " + std::to_string(end.index) + " is outside 0.." + std::to_string(dimension.size - 1));
        }
        if (end.isSwitch && dimension.kind == NetworkKind::Switch && end.tier != 1) {
            return fail("a switch dimension has one switch tier (s1.<index>)");
        }
        if (end.isSwitch && isTree(dimension.kind) && end.tier > dimension.tiers) {
            return fail("the " + std::string(toString(dimension.kind)) + " tree has " + std::to_string(dimension.tiers)
                + " tiers");
        }
    }
    if (*a == *b) {
        return fail("both ends are the same");
    }
    if (!a->isSwitch && !b->isSwitch && switched) {
        return fail("in a switched dimension links join an endpoint to a switch or two switches");
    }
    parts.a = *a;
    parts.b = *b;
    return parts;
}

std::string formatLinkId(const LinkIdParts& parts, const ClusterSpec& cluster)
{
    const std::string name = parts.dimension >= 0 && static_cast<size_t>(parts.dimension) < cluster.dimensions.size()
        ? cluster.dimensions[static_cast<size_t>(parts.dimension)].name
        : std::string("?");
    const std::string copy = parts.replica > 0 ? "@" + std::to_string(parts.replica) : std::string();
    return name + copy + ":" + formatEnd(parts.a) + "-" + formatEnd(parts.b);
}

} // namespace rapid::config

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardwarespec.h"

#include <optional>
#include <string>

namespace rapid::config {

/// One end of a link: an endpoint (GPU or node index in its dimension) or a switch `s<tier>.<index>`.
struct LinkEnd {
    bool isSwitch = false;
    int tier = 0; ///< switches only; 1 = leaf
    int index = 0;

    bool operator==(const LinkEnd&) const = default;
};

/// A parsed link id "<dimension>:<a>-<b>" or "<dimension>@<copy>:<a>-<b>" (see configs/README.md). A dimension is
/// replicated once for every combination of the other dimensions' coordinates; the copy numbers those (0 = the copy
/// holding GPU 0; for NVLink x InfiniBand, the NVLink copy is the node and the InfiniBand copy the rail).
struct LinkIdParts {
    int dimension = 0; ///< index into ClusterSpec::dimensions
    int replica = 0; ///< the copy of the dimension
    LinkEnd a;
    LinkEnd b;

    bool operator==(const LinkIdParts&) const = default;
};

/// Parses and checks a link id against the cluster: the dimension exists, the copy exists, endpoints are in range,
/// switch ends only in switch and fat-tree dimensions. Whether the link physically exists is checked by the network
/// model.
std::optional<LinkIdParts> parseLinkId(const std::string& text, const ClusterSpec& cluster, std::string* why);

/// Whether link ids @p a and @p b name the same link as written, without a cluster to check them against: the same
/// dimension (and copy) and the same two ends in either order ("nvlink@2:3-s1.0" and "nvlink@2:s1.0-3"). Text that
/// is not a link id compares as text.
bool sameLinkId(const std::string& a, const std::string& b);

/// The canonical text of a link id.
std::string formatLinkId(const LinkIdParts& parts, const ClusterSpec& cluster);

} // namespace rapid::config

// SPDX-License-Identifier: GPL-3.0-or-later
#include "collective.h"

#include <algorithm>
#include <cctype>

namespace rapid::network {

const char* toString(CollectiveKind kind)
{
    switch (kind) {
    case CollectiveKind::AllReduce:
        return "all-reduce";
    case CollectiveKind::ReduceScatter:
        return "reduce-scatter";
    case CollectiveKind::AllGather:
        return "all-gather";
    case CollectiveKind::AllToAll:
        return "all-to-all";
    case CollectiveKind::Broadcast:
        return "broadcast";
    case CollectiveKind::SendRecv:
        return "send/recv";
    }
    return "?";
}

std::optional<CollectiveKind> parseCollectiveKind(std::string_view text)
{
    std::string key;
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    static const std::pair<const char*, CollectiveKind> kNames[] = {
        { "allreduce", CollectiveKind::AllReduce },
        { "reducescatter", CollectiveKind::ReduceScatter },
        { "allgather", CollectiveKind::AllGather },
        { "alltoall", CollectiveKind::AllToAll },
        { "broadcast", CollectiveKind::Broadcast },
        { "sendrecv", CollectiveKind::SendRecv },
    };
    for (const auto& [name, kind] : kNames) {
        if (key == name) {
            return kind;
        }
    }
    return std::nullopt;
}

const char* toString(CollectiveAlgorithm algorithm)
{
    switch (algorithm) {
    case CollectiveAlgorithm::Ring:
        return "ring";
    case CollectiveAlgorithm::Tree:
        return "tree";
    case CollectiveAlgorithm::Direct:
        return "direct";
    case CollectiveAlgorithm::HalvingDoubling:
        return "halving-doubling";
    case CollectiveAlgorithm::Hierarchical:
        return "hierarchical";
    case CollectiveAlgorithm::PointToPoint:
        return "point-to-point";
    case CollectiveAlgorithm::InNetwork:
        return "in-network";
    }
    return "?";
}

const char* toString(CollectiveLibrary library)
{
    return library == CollectiveLibrary::Nccl ? "nccl" : "custom";
}

std::optional<CollectiveLibrary> parseCollectiveLibrary(std::string_view text)
{
    for (CollectiveLibrary library : { CollectiveLibrary::Custom, CollectiveLibrary::Nccl }) {
        if (text == toString(library)) {
            return library;
        }
    }
    return std::nullopt;
}

double busBandwidthFactor(CollectiveKind kind, int ranks)
{
    const double p = std::max(ranks, 1);
    switch (kind) {
    case CollectiveKind::AllReduce:
        return 2 * (p - 1) / p;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather:
    case CollectiveKind::AllToAll:
        return (p - 1) / p;
    case CollectiveKind::Broadcast:
    case CollectiveKind::SendRecv:
        return 1;
    }
    return 1;
}

} // namespace rapid::network

// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakratrace.h"

#include <sstream>

namespace rapid::graph {

const char* toString(ChakraNodeType type)
{
    switch (type) {
    case ChakraNodeType::Invalid:
        return "INVALID_NODE";
    case ChakraNodeType::Metadata:
        return "METADATA_NODE";
    case ChakraNodeType::MemLoad:
        return "MEM_LOAD_NODE";
    case ChakraNodeType::MemStore:
        return "MEM_STORE_NODE";
    case ChakraNodeType::Compute:
        return "COMP_NODE";
    case ChakraNodeType::Send:
        return "COMM_SEND_NODE";
    case ChakraNodeType::Recv:
        return "COMM_RECV_NODE";
    case ChakraNodeType::Collective:
        return "COMM_COLL_NODE";
    }
    return "UNKNOWN_NODE";
}

bool isKnown(ChakraNodeType type)
{
    const auto value = static_cast<std::int32_t>(type);
    return value >= 0 && value < kChakraNodeTypeCount;
}

bool isCommunication(ChakraNodeType type)
{
    return type == ChakraNodeType::Send || type == ChakraNodeType::Recv || type == ChakraNodeType::Collective;
}

const char* toString(ChakraCollective collective)
{
    switch (collective) {
    case ChakraCollective::AllReduce:
        return "ALL_REDUCE";
    case ChakraCollective::Reduce:
        return "REDUCE";
    case ChakraCollective::AllGather:
        return "ALL_GATHER";
    case ChakraCollective::Gather:
        return "GATHER";
    case ChakraCollective::Scatter:
        return "SCATTER";
    case ChakraCollective::Broadcast:
        return "BROADCAST";
    case ChakraCollective::AllToAll:
        return "ALL_TO_ALL";
    case ChakraCollective::ReduceScatter:
        return "REDUCE_SCATTER";
    case ChakraCollective::ReduceScatterBlock:
        return "REDUCE_SCATTER_BLOCK";
    case ChakraCollective::Barrier:
        return "BARRIER";
    }
    return "UNKNOWN";
}

const char* toString(ChakraAttributeType type)
{
    static const char* const names[] = { "none", "?", "?", "double_val", "double_list", "float_val", "float_list",
        "int32_val", "int32_list", "int64_val", "int64_list", "uint32_val", "uint32_list", "uint64_val", "uint64_list",
        "sint32_val", "sint32_list", "sint64_val", "sint64_list", "fixed32_val", "fixed32_list", "fixed64_val",
        "fixed64_list", "sfixed32_val", "sfixed32_list", "sfixed64_val", "sfixed64_list", "bool_val", "bool_list",
        "string_val", "string_list", "bytes_val", "bytes_list" };
    const auto index = static_cast<size_t>(type);
    return index < std::size(names) ? names[index] : "?";
}

bool isIntegerType(ChakraAttributeType type)
{
    switch (type) {
    case ChakraAttributeType::Int32:
    case ChakraAttributeType::Int64:
    case ChakraAttributeType::Uint32:
    case ChakraAttributeType::Uint64:
    case ChakraAttributeType::Sint32:
    case ChakraAttributeType::Sint64:
    case ChakraAttributeType::Fixed32:
    case ChakraAttributeType::Fixed64:
    case ChakraAttributeType::Sfixed32:
    case ChakraAttributeType::Sfixed64:
    case ChakraAttributeType::Bool:
        return true;
    default:
        return false;
    }
}

std::optional<std::int64_t> ChakraAttribute::integer() const
{
    if (!isIntegerType(type)) {
        return std::nullopt;
    }
    if (const auto* signedValue = std::get_if<std::int64_t>(&value)) {
        return *signedValue;
    }
    if (const auto* unsignedValue = std::get_if<std::uint64_t>(&value)) {
        return static_cast<std::int64_t>(*unsignedValue);
    }
    if (const auto* flag = std::get_if<bool>(&value)) {
        return *flag ? 1 : 0;
    }
    return std::nullopt;
}

std::optional<std::string> ChakraAttribute::string() const
{
    if (type != ChakraAttributeType::String && type != ChakraAttributeType::Bytes) {
        return std::nullopt;
    }
    if (const auto* text = std::get_if<std::string>(&value)) {
        return *text;
    }
    return std::nullopt;
}

namespace {

template <typename T> void writeList(std::ostream& out, const std::vector<T>& values)
{
    out << '[';
    for (size_t i = 0; i < values.size(); ++i) {
        out << (i ? ", " : "");
        if constexpr (std::is_same_v<T, bool>) {
            out << (values[i] ? "true" : "false");
        } else if constexpr (std::is_same_v<T, std::string>) {
            out << '"' << values[i] << '"';
        } else {
            out << values[i];
        }
    }
    out << ']';
}

} // namespace

std::string ChakraAttribute::valueText() const
{
    std::ostringstream out;
    std::visit(
        [&out](const auto& held) {
            using T = std::decay_t<decltype(held)>;
            if constexpr (std::is_same_v<T, std::monostate>) {
                out << "(no value)";
            } else if constexpr (std::is_same_v<T, bool>) {
                out << (held ? "true" : "false");
            } else if constexpr (std::is_same_v<T, std::string>) {
                out << '"' << held << '"';
            } else if constexpr (std::is_arithmetic_v<T>) {
                out << held;
            } else {
                writeList(out, held);
            }
        },
        value);
    return out.str();
}

ChakraAttribute ChakraAttribute::int64(std::string name, std::int64_t value)
{
    return { std::move(name), {}, ChakraAttributeType::Int64, value };
}

ChakraAttribute ChakraAttribute::int32(std::string name, std::int32_t value)
{
    return { std::move(name), {}, ChakraAttributeType::Int32, std::int64_t { value } };
}

ChakraAttribute ChakraAttribute::uint64(std::string name, std::uint64_t value)
{
    return { std::move(name), {}, ChakraAttributeType::Uint64, value };
}

ChakraAttribute ChakraAttribute::boolean(std::string name, bool value)
{
    return { std::move(name), {}, ChakraAttributeType::Bool, value };
}

ChakraAttribute ChakraAttribute::text(std::string name, std::string value)
{
    return { std::move(name), {}, ChakraAttributeType::String, std::move(value) };
}

const ChakraAttribute* ChakraNode::attribute(std::string_view attributeName) const
{
    for (const ChakraAttribute& candidate : attributes) {
        if (candidate.name == attributeName) {
            return &candidate;
        }
    }
    return nullptr;
}

std::optional<std::int64_t> ChakraNode::integerAttribute(std::string_view attributeName) const
{
    const ChakraAttribute* found = attribute(attributeName);
    return found ? found->integer() : std::nullopt;
}

} // namespace rapid::graph

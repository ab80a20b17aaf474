// SPDX-License-Identifier: GPL-3.0-or-later
// The only file that sees the generated protobuf types.
#include "chakrawire_p.h"

#include "et_def.pb.h"

#include <google/protobuf/stubs/logging.h>

#include <climits>
#include <stdexcept>

namespace rapid::graph::chakrawire {

namespace {

using WireAttribute = rapid::chakra::wire::AttributeProto;
using Type = ChakraAttributeType;

template <typename To, typename List> std::vector<To> copyList(const List& list)
{
    std::vector<To> values;
    values.reserve(static_cast<size_t>(list.values_size()));
    for (const auto& value : list.values()) {
        values.push_back(static_cast<To>(value));
    }
    return values;
}

ChakraAttribute fromWire(const WireAttribute& in)
{
    ChakraAttribute out;
    out.name = in.name();
    out.docString = in.doc_string();
    switch (in.value_case()) {
    case WireAttribute::kDoubleVal:
        out.value = in.double_val();
        break;
    case WireAttribute::kDoubleList:
        out.value = copyList<double>(in.double_list());
        break;
    case WireAttribute::kFloatVal:
        out.value = static_cast<double>(in.float_val());
        break;
    case WireAttribute::kFloatList:
        out.value = copyList<double>(in.float_list());
        break;
    case WireAttribute::kInt32Val:
        out.value = std::int64_t { in.int32_val() };
        break;
    case WireAttribute::kInt32List:
        out.value = copyList<std::int64_t>(in.int32_list());
        break;
    case WireAttribute::kInt64Val:
        out.value = std::int64_t { in.int64_val() };
        break;
    case WireAttribute::kInt64List:
        out.value = copyList<std::int64_t>(in.int64_list());
        break;
    case WireAttribute::kUint32Val:
        out.value = std::uint64_t { in.uint32_val() };
        break;
    case WireAttribute::kUint32List:
        out.value = copyList<std::uint64_t>(in.uint32_list());
        break;
    case WireAttribute::kUint64Val:
        out.value = std::uint64_t { in.uint64_val() };
        break;
    case WireAttribute::kUint64List:
        out.value = copyList<std::uint64_t>(in.uint64_list());
        break;
    case WireAttribute::kSint32Val:
        out.value = std::int64_t { in.sint32_val() };
        break;
    case WireAttribute::kSint32List:
        out.value = copyList<std::int64_t>(in.sint32_list());
        break;
    case WireAttribute::kSint64Val:
        out.value = std::int64_t { in.sint64_val() };
        break;
    case WireAttribute::kSint64List:
        out.value = copyList<std::int64_t>(in.sint64_list());
        break;
    case WireAttribute::kFixed32Val:
        out.value = std::uint64_t { in.fixed32_val() };
        break;
    case WireAttribute::kFixed32List:
        out.value = copyList<std::uint64_t>(in.fixed32_list());
        break;
    case WireAttribute::kFixed64Val:
        out.value = std::uint64_t { in.fixed64_val() };
        break;
    case WireAttribute::kFixed64List:
        out.value = copyList<std::uint64_t>(in.fixed64_list());
        break;
    case WireAttribute::kSfixed32Val:
        out.value = std::int64_t { in.sfixed32_val() };
        break;
    case WireAttribute::kSfixed32List:
        out.value = copyList<std::int64_t>(in.sfixed32_list());
        break;
    case WireAttribute::kSfixed64Val:
        out.value = std::int64_t { in.sfixed64_val() };
        break;
    case WireAttribute::kSfixed64List:
        out.value = copyList<std::int64_t>(in.sfixed64_list());
        break;
    case WireAttribute::kBoolVal:
        out.value = in.bool_val();
        break;
    case WireAttribute::kBoolList:
        out.value = copyList<bool>(in.bool_list());
        break;
    case WireAttribute::kStringVal:
        out.value = in.string_val();
        break;
    case WireAttribute::kStringList:
        out.value = std::vector<std::string>(in.string_list().values().begin(), in.string_list().values().end());
        break;
    case WireAttribute::kBytesVal:
        out.value = in.bytes_val();
        break;
    case WireAttribute::kBytesList:
        out.value = std::vector<std::string>(in.bytes_list().values().begin(), in.bytes_list().values().end());
        break;
    case WireAttribute::VALUE_NOT_SET:
        break;
    }
    // The oneof case numbers are the wire field numbers, which is how ChakraAttributeType is numbered.
    out.type = static_cast<Type>(in.value_case());
    return out;
}

template <typename T> const T& held(const ChakraAttribute& attribute)
{
    if (const T* value = std::get_if<T>(&attribute.value)) {
        return *value;
    }
    throw std::invalid_argument(
        "Chakra attribute \"" + attribute.name + "\": value does not match its type " + toString(attribute.type));
}

template <typename Out, typename In> void fillList(Out* list, const std::vector<In>& values)
{
    list->mutable_values()->Reserve(static_cast<int>(values.size()));
    for (const In value : values) {
        list->add_values(value);
    }
}

/// fillList for the narrower wire types (float, 32-bit integers): each value converted to @p Narrow.
template <typename Narrow, typename Out, typename In> void fillNarrowed(Out* list, const std::vector<In>& values)
{
    for (const In value : values) {
        list->add_values(static_cast<Narrow>(value));
    }
}

void toWire(const ChakraAttribute& in, WireAttribute& out)
{
    out.set_name(in.name);
    out.set_doc_string(in.docString);
    switch (in.type) {
    case Type::None:
        break;
    case Type::Double:
        out.set_double_val(held<double>(in));
        break;
    case Type::DoubleList:
        fillList(out.mutable_double_list(), held<std::vector<double>>(in));
        break;
    case Type::Float:
        out.set_float_val(static_cast<float>(held<double>(in)));
        break;
    case Type::FloatList:
        fillNarrowed<float>(out.mutable_float_list(), held<std::vector<double>>(in));
        break;
    case Type::Int32:
        out.set_int32_val(static_cast<std::int32_t>(held<std::int64_t>(in)));
        break;
    case Type::Int32List:
        fillNarrowed<std::int32_t>(out.mutable_int32_list(), held<std::vector<std::int64_t>>(in));
        break;
    case Type::Int64:
        out.set_int64_val(held<std::int64_t>(in));
        break;
    case Type::Int64List:
        fillList(out.mutable_int64_list(), held<std::vector<std::int64_t>>(in));
        break;
    case Type::Uint32:
        out.set_uint32_val(static_cast<std::uint32_t>(held<std::uint64_t>(in)));
        break;
    case Type::Uint32List:
        fillNarrowed<std::uint32_t>(out.mutable_uint32_list(), held<std::vector<std::uint64_t>>(in));
        break;
    case Type::Uint64:
        out.set_uint64_val(held<std::uint64_t>(in));
        break;
    case Type::Uint64List:
        fillList(out.mutable_uint64_list(), held<std::vector<std::uint64_t>>(in));
        break;
    case Type::Sint32:
        out.set_sint32_val(static_cast<std::int32_t>(held<std::int64_t>(in)));
        break;
    case Type::Sint32List:
        fillNarrowed<std::int32_t>(out.mutable_sint32_list(), held<std::vector<std::int64_t>>(in));
        break;
    case Type::Sint64:
        out.set_sint64_val(held<std::int64_t>(in));
        break;
    case Type::Sint64List:
        fillList(out.mutable_sint64_list(), held<std::vector<std::int64_t>>(in));
        break;
    case Type::Fixed32:
        out.set_fixed32_val(static_cast<std::uint32_t>(held<std::uint64_t>(in)));
        break;
    case Type::Fixed32List:
        fillNarrowed<std::uint32_t>(out.mutable_fixed32_list(), held<std::vector<std::uint64_t>>(in));
        break;
    case Type::Fixed64:
        out.set_fixed64_val(held<std::uint64_t>(in));
        break;
    case Type::Fixed64List:
        fillList(out.mutable_fixed64_list(), held<std::vector<std::uint64_t>>(in));
        break;
    case Type::Sfixed32:
        out.set_sfixed32_val(static_cast<std::int32_t>(held<std::int64_t>(in)));
        break;
    case Type::Sfixed32List:
        fillNarrowed<std::int32_t>(out.mutable_sfixed32_list(), held<std::vector<std::int64_t>>(in));
        break;
    case Type::Sfixed64:
        out.set_sfixed64_val(held<std::int64_t>(in));
        break;
    case Type::Sfixed64List:
        fillList(out.mutable_sfixed64_list(), held<std::vector<std::int64_t>>(in));
        break;
    case Type::Bool:
        out.set_bool_val(held<bool>(in));
        break;
    case Type::BoolList:
        fillNarrowed<bool>(out.mutable_bool_list(), held<std::vector<bool>>(in));
        break;
    case Type::String:
        out.set_string_val(held<std::string>(in));
        break;
    case Type::StringList:
        for (const std::string& value : held<std::vector<std::string>>(in)) {
            out.mutable_string_list()->add_values(value);
        }
        out.mutable_string_list();
        break;
    case Type::Bytes:
        out.set_bytes_val(held<std::string>(in));
        break;
    case Type::BytesList:
        for (const std::string& value : held<std::vector<std::string>>(in)) {
            out.mutable_bytes_list()->add_values(value);
        }
        out.mutable_bytes_list();
        break;
    }
}

ChakraIoInfo fromWire(const rapid::chakra::wire::IOInfo& in)
{
    return { in.values(), in.shapes(), in.types() };
}

void toWire(const ChakraIoInfo& in, rapid::chakra::wire::IOInfo& out)
{
    out.set_values(in.values);
    out.set_shapes(in.shapes);
    out.set_types(in.types);
}

template <typename Message> bool parse(Message& message, const char* data, std::size_t size)
{
    if (size > static_cast<std::size_t>(INT_MAX)) {
        return false;
    }
    // Proto3 strings with invalid UTF-8 make the parser log before it fails; the caller reports the failure itself.
    const google::protobuf::LogSilencer silencer;
    return message.ParseFromArray(data, static_cast<int>(size));
}

} // namespace

bool decodeMetadata(const char* data, std::size_t size, ChakraMetadata& metadata)
{
    rapid::chakra::wire::GlobalMetadata message;
    if (!parse(message, data, size)) {
        return false;
    }
    metadata.version = message.version();
    metadata.attributes.clear();
    metadata.attributes.reserve(static_cast<size_t>(message.attr_size()));
    for (const WireAttribute& attribute : message.attr()) {
        metadata.attributes.push_back(fromWire(attribute));
    }
    return true;
}

namespace {

void fromWire(const rapid::chakra::wire::Node& message, ChakraNode& node)
{
    node.id = message.id();
    node.name = message.name();
    node.type = static_cast<ChakraNodeType>(message.type());
    node.ctrlDeps.assign(message.ctrl_deps().begin(), message.ctrl_deps().end());
    node.dataDeps.assign(message.data_deps().begin(), message.data_deps().end());
    node.startTimeMicros = message.start_time_micros();
    node.durationMicros = message.duration_micros();
    node.inputs = message.has_inputs() ? std::optional(fromWire(message.inputs())) : std::nullopt;
    node.outputs = message.has_outputs() ? std::optional(fromWire(message.outputs())) : std::nullopt;
    node.attributes.clear();
    node.attributes.reserve(static_cast<size_t>(message.attr_size()));
    for (const WireAttribute& attribute : message.attr()) {
        node.attributes.push_back(fromWire(attribute));
    }
}

} // namespace

bool decodeNode(const char* data, std::size_t size, ChakraNode& node)
{
    rapid::chakra::wire::Node message;
    if (!parse(message, data, size)) {
        return false;
    }
    fromWire(message, node);
    return true;
}

struct NodeDecoder::Reused {
    const google::protobuf::LogSilencer silencer; // see parse()
    rapid::chakra::wire::Node message;
};

NodeDecoder::NodeDecoder()
    : m_reused(std::make_unique<Reused>())
{
}

NodeDecoder::~NodeDecoder() = default;

bool NodeDecoder::decode(const char* data, std::size_t size, ChakraNode& node)
{
    if (size > static_cast<std::size_t>(INT_MAX) || !m_reused->message.ParseFromArray(data, static_cast<int>(size))) {
        return false;
    }
    fromWire(m_reused->message, node);
    return true;
}

std::string encodeMetadata(const ChakraMetadata& metadata)
{
    rapid::chakra::wire::GlobalMetadata message;
    message.set_version(metadata.version);
    for (const ChakraAttribute& attribute : metadata.attributes) {
        toWire(attribute, *message.add_attr());
    }
    return message.SerializeAsString();
}

std::string encodeNode(const ChakraNode& node)
{
    rapid::chakra::wire::Node message;
    message.set_id(node.id);
    message.set_name(node.name);
    message.set_type(static_cast<rapid::chakra::wire::NodeType>(node.type));
    message.mutable_ctrl_deps()->Add(node.ctrlDeps.begin(), node.ctrlDeps.end());
    message.mutable_data_deps()->Add(node.dataDeps.begin(), node.dataDeps.end());
    message.set_start_time_micros(node.startTimeMicros);
    message.set_duration_micros(node.durationMicros);
    if (node.inputs) {
        toWire(*node.inputs, *message.mutable_inputs());
    }
    if (node.outputs) {
        toWire(*node.outputs, *message.mutable_outputs());
    }
    for (const ChakraAttribute& attribute : node.attributes) {
        toWire(attribute, *message.add_attr());
    }
    return message.SerializeAsString();
}

} // namespace rapid::graph::chakrawire

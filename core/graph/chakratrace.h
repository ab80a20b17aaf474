// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace rapid::graph {

/// Node types of the Chakra execution-trace format (values as on the wire). The wire enum is open: a trace may carry
/// a value outside these enumerators, which is kept as is (see isKnown()).
enum class ChakraNodeType : std::int32_t {
    Invalid = 0,
    Metadata = 1,
    MemLoad = 2,
    MemStore = 3,
    Compute = 4,
    Send = 5,
    Recv = 6,
    Collective = 7,
};
constexpr int kChakraNodeTypeCount = 8;
/// The wire name ("COMP_NODE"); "UNKNOWN_NODE" for values outside the enum.
const char* toString(ChakraNodeType type);
bool isKnown(ChakraNodeType type);
/// SEND, RECV or COLL.
bool isCommunication(ChakraNodeType type);

/// Values of the `comm_type` attribute of COMM_COLL nodes.
enum class ChakraCollective : std::int64_t {
    AllReduce = 0,
    Reduce = 1,
    AllGather = 2,
    Gather = 3,
    Scatter = 4,
    Broadcast = 5,
    AllToAll = 6,
    ReduceScatter = 7,
    ReduceScatterBlock = 8,
    Barrier = 9,
};
/// The wire name ("ALL_REDUCE"); "UNKNOWN" outside the enum.
const char* toString(ChakraCollective collective);

/// Which member of the attribute's `oneof value` was present on the wire. The numbers are the wire field numbers.
/// None means the attribute carried no value (ASTRA-sim treats that as an error).
enum class ChakraAttributeType : std::uint8_t {
    None = 0,
    Double = 3,
    DoubleList = 4,
    Float = 5,
    FloatList = 6,
    Int32 = 7,
    Int32List = 8,
    Int64 = 9,
    Int64List = 10,
    Uint32 = 11,
    Uint32List = 12,
    Uint64 = 13,
    Uint64List = 14,
    Sint32 = 15,
    Sint32List = 16,
    Sint64 = 17,
    Sint64List = 18,
    Fixed32 = 19,
    Fixed32List = 20,
    Fixed64 = 21,
    Fixed64List = 22,
    Sfixed32 = 23,
    Sfixed32List = 24,
    Sfixed64 = 25,
    Sfixed64List = 26,
    Bool = 27,
    BoolList = 28,
    String = 29,
    StringList = 30,
    Bytes = 31,
    BytesList = 32,
};
/// The wire member name ("int64_val", "bool_list"); "none" for None.
const char* toString(ChakraAttributeType type);
/// A scalar member of integer kind (int*, uint*, sint*, fixed*, sfixed*) or bool.
bool isIntegerType(ChakraAttributeType type);

/// One named, typed attribute. `value` holds the alternative that matches `type`:
/// signed integer members -> int64_t, unsigned -> uint64_t, double/float -> double, bool -> bool,
/// string/bytes -> std::string, and the corresponding std::vector for the list members; None -> monostate.
struct ChakraAttribute {
    using Value = std::variant<std::monostate, std::int64_t, std::uint64_t, double, bool, std::string,
        std::vector<std::int64_t>, std::vector<std::uint64_t>, std::vector<double>, std::vector<bool>,
        std::vector<std::string>>;

    std::string name;
    std::string docString;
    ChakraAttributeType type = ChakraAttributeType::None;
    Value value;

    /// The value as an integer if the member is an integer or bool scalar (ASTRA-sim's rule: float -> integer is
    /// refused). Unsigned values above INT64_MAX wrap.
    std::optional<std::int64_t> integer() const;
    /// The value as a string for string/bytes members.
    std::optional<std::string> string() const;
    /// A short text of the value ("1048576", "false", "\"1\"", "[true, false]").
    std::string valueText() const;

    static ChakraAttribute int64(std::string name, std::int64_t value);
    static ChakraAttribute int32(std::string name, std::int32_t value);
    static ChakraAttribute uint64(std::string name, std::uint64_t value);
    static ChakraAttribute boolean(std::string name, bool value);
    static ChakraAttribute text(std::string name, std::string value);

    bool operator==(const ChakraAttribute&) const = default;
};

/// The IOInfo sub-message (Python-literal text from the PyTorch converter).
struct ChakraIoInfo {
    std::string values;
    std::string shapes;
    std::string types;
    bool operator==(const ChakraIoInfo&) const = default;
};

/// One node of one rank's trace. Ids are local to the file; dependencies name parent ids in the same file.
struct ChakraNode {
    std::uint64_t id = 0;
    std::string name;
    ChakraNodeType type = ChakraNodeType::Invalid;
    std::vector<std::uint64_t> ctrlDeps; ///< control-dependency parents
    std::vector<std::uint64_t> dataDeps; ///< data-dependency parents
    std::uint64_t startTimeMicros = 0;
    std::uint64_t durationMicros = 0; ///< integer microseconds (ASTRA-sim replay time)
    std::optional<ChakraIoInfo> inputs; ///< present iff the sub-message was on the wire
    std::optional<ChakraIoInfo> outputs; ///< present iff the sub-message was on the wire
    std::vector<ChakraAttribute> attributes; ///< in wire order; lookups take the first match by name

    /// The first attribute called @p attributeName, or nullptr.
    const ChakraAttribute* attribute(std::string_view attributeName) const;
    /// The first attribute called @p attributeName as an integer (see ChakraAttribute::integer()).
    std::optional<std::int64_t> integerAttribute(std::string_view attributeName) const;

    bool operator==(const ChakraNode&) const = default;
};

/// The GlobalMetadata message that opens every file.
struct ChakraMetadata {
    std::string version; ///< "0.0.4", "1.0.0" or empty
    std::vector<ChakraAttribute> attributes;
    bool operator==(const ChakraMetadata&) const = default;
};

/// One rank's trace: the contents of one `<prefix>.<rank>.et` file.
struct ChakraTrace {
    int rank = 0; ///< from the file name (`<prefix>.<rank>.et`); 0 if the name has no rank
    std::string path; ///< where it was read from (empty for traces built in memory)
    ChakraMetadata metadata;
    std::vector<ChakraNode> nodes; ///< in file order

    bool operator==(const ChakraTrace&) const = default;
};

} // namespace rapid::graph

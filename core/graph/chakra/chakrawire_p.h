// SPDX-License-Identifier: GPL-3.0-or-later
// Private to the Chakra adapter: converts between our trace types and the message bytes of one frame. The protobuf
// generated types stay behind these functions (in the rapid_chakra_proto object library).
#pragma once

#include "graph/chakratrace.h"

#include <cstddef>
#include <memory>
#include <string>

namespace rapid::graph::chakrawire {

/// Parses the bytes of one GlobalMetadata message. Returns false if they are not a valid message.
bool decodeMetadata(const char* data, std::size_t size, ChakraMetadata& metadata);
/// Parses the bytes of one Node message. Returns false if they are not a valid message.
bool decodeNode(const char* data, std::size_t size, ChakraNode& node);

/// decodeNode for the frames of one file: one message object is reused (its strings and attribute messages keep
/// their memory from frame to frame) and the protobuf log stays silenced while the decoder lives. One per thread.
class NodeDecoder {
public:
    NodeDecoder();
    ~NodeDecoder();
    NodeDecoder(const NodeDecoder&) = delete;
    NodeDecoder& operator=(const NodeDecoder&) = delete;
    bool decode(const char* data, std::size_t size, ChakraNode& node);

private:
    struct Reused;
    std::unique_ptr<Reused> m_reused;
};

/// Encodes in field-number order with packed repeated scalars and every present oneof member written explicitly.
/// Throws std::invalid_argument if an attribute's value alternative does not match its type.
std::string encodeMetadata(const ChakraMetadata& metadata);
std::string encodeNode(const ChakraNode& node);

} // namespace rapid::graph::chakrawire

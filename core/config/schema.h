// SPDX-License-Identifier: GPL-3.0-or-later
// The configuration schema, written once: every key of the model, GPU, hardware and run documents with its type,
// unit, range, choices, default and meaning. The readers take ranges, choices and defaults from here (a key the
// schema lacks is a programming error they refuse), configs/README.md's key tables are generated from it
// (tst_schema checks they match) and the workbench's form fields take their limits, choices, defaults and tooltips
// from it.
#pragma once

#include "units.h"

#include <string>
#include <string_view>
#include <vector>

namespace rapid::config::schema {

enum class Document { Model, Gpu, Hardware, Run };

/// "model", "gpu", "hardware", "run": the document's root key.
const char* toString(Document document);
/// Where @p document's keys sit in a scenario (`--set` paths, workspace overrides): "model.", "hardware.",
/// "run.", and "hardware.gpu." for the GPU inside the hardware document.
std::string scenarioPrefix(Document document);
const std::vector<Document>& documents();

enum class Type {
    Text,
    Integer, ///< whole number in [minimum, maximum]
    Number, ///< real number in [minimum, maximum]
    Boolean,
    Choice, ///< one of `choices`
    Quantity, ///< a number with a unit of `dimension`, in (minimum, maximum] SI units
    Mapping, ///< a nested mapping whose keys are listed under this path
    List, ///< a sequence; items of mappings have their keys listed under `path[]`
};

const char* toString(Type type);

struct Key {
    /// From the document's root, dot-separated; `[]` marks the items of a list ("cluster.network[].size").
    /// A quantity's path is its base name ("hbm.bandwidth"); presets write it with `unit` ("hbm.bandwidth_GBps").
    std::string path;
    Type type = Type::Text;
    std::string doc; ///< one line, shown in configs/README.md and as the form field's tooltip
    bool required = false;
    std::string defaultValue; ///< YAML text the reader assumes when the key is absent; empty when none is assumed
    std::string defaultNote; ///< a default that depends on other keys, in words ("num_heads")
    double minimum = 0;
    double maximum = 0;
    std::vector<std::string> choices;
    Dimension dimension = Dimension::Dimensionless;
    std::string unit; ///< Quantity: the unit suffix presets use, without underscore ("GBps")

    /// The last component of the path ("size" for "cluster.network[].size").
    std::string name() const;
    /// The key as presets write it: the name with the unit suffix for a quantity ("bandwidth_GBps").
    std::string writtenName() const;
    /// The path as presets write it ("hbm.bandwidth_GBps").
    std::string writtenPath() const;
    /// The default as a reader shows it: the value, the note, "required" or "optional".
    std::string defaultText() const;
};

/// Every key of @p document, parents before children, in the order the reader reads them.
const std::vector<Key>& keys(Document document);
/// The key at @p path (schema spelling, not the written one), or nullptr.
const Key* find(Document document, std::string_view path);
/// The key at @p path; throws std::logic_error when the schema lacks it (a reader asking for an undeclared key).
const Key& at(Document document, std::string_view path);

/// One Markdown table of @p document's keys (key, type, default, meaning), as configs/README.md shows it.
std::string markdownTable(Document document);

/// @p markdown with every section between `<!-- schema:<document> -->` and `<!-- /schema:<document> -->` replaced by
/// that document's current table. Sets @p sectionsFound to the number of sections replaced.
std::string withSchemaTables(const std::string& markdown, int* sectionsFound = nullptr);

} // namespace rapid::config::schema

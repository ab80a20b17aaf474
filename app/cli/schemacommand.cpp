// SPDX-License-Identifier: GPL-3.0-or-later
// rapid schema: the keys of the configuration documents, from core/config/schema.h (the readers' own table).
#include "arguments.h"
#include "commands.h"

#include "config/schema.h"
#include "report/json.h"

#include <fstream>
#include <sstream>

namespace rapid::cli {

namespace {

std::vector<config::schema::Document> selectedDocuments(const Arguments& arguments)
{
    if (arguments.positional().empty()) {
        return config::schema::documents();
    }
    std::vector<config::schema::Document> selected;
    for (const std::string& name : arguments.positional()) {
        bool known = false;
        for (config::schema::Document document : config::schema::documents()) {
            if (name == config::schema::toString(document)) {
                selected.push_back(document);
                known = true;
            }
        }
        if (!known) {
            throw UsageError("unknown document \"" + name + "\"; expected model, gpu, hardware or run");
        }
    }
    return selected;
}

report::Json keyJson(const config::schema::Key& key)
{
    report::Json json = { { "key", key.writtenPath() }, { "type", config::schema::toString(key.type) },
        { "required", key.required }, { "doc", key.doc } };
    if (!key.defaultValue.empty()) {
        json["default"] = key.defaultValue;
    } else if (!key.defaultNote.empty()) {
        json["default_from"] = key.defaultNote;
    }
    if (key.type == config::schema::Type::Integer || key.type == config::schema::Type::Number) {
        json["minimum"] = key.minimum;
        json["maximum"] = key.maximum;
    }
    if (!key.choices.empty()) {
        json["choices"] = key.choices;
    }
    return json;
}

int updateFile(const std::string& path, const Invocation& invocation)
{
    std::ifstream in(path);
    if (!in) {
        invocation.err << "rapid schema: cannot read " << path << "\n";
        return InputError;
    }
    std::stringstream text;
    text << in.rdbuf();
    int sections = 0;
    const std::string updated = config::schema::withSchemaTables(text.str(), &sections);
    if (sections == 0) {
        invocation.err << "rapid schema: " << path << " has no <!-- schema:<document> --> section\n";
        return InputError;
    }
    if (updated != text.str()) {
        std::ofstream out(path, std::ios::trunc);
        out << updated;
        if (!out) {
            invocation.err << "rapid schema: cannot write " << path << "\n";
            return InputError;
        }
    }
    invocation.out << path << ": " << sections << " tables " << (updated == text.str() ? "already current" : "updated")
                   << "\n";
    return Success;
}

} // namespace

int schemaCommand(const Invocation& invocation)
{
    Arguments arguments("schema",
        "Prints the keys of the model, gpu, hardware and run documents: type, range, default and meaning. These are "
        "the tables the readers check documents against.",
        { { "json", "", "print the keys as JSON" },
            { "update", "FILE",
                "rewrite the <!-- schema:run --> ... <!-- /schema:run --> sections of a Markdown file" } },
        "[DOCUMENT...]");
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    if (const auto file = arguments.value("update")) {
        return updateFile(*file, invocation);
    }
    const std::vector<config::schema::Document> documents = selectedDocuments(arguments);
    if (arguments.flag("json")) {
        report::Json json = report::Json::object();
        for (config::schema::Document document : documents) {
            report::Json keys = report::Json::array();
            for (const config::schema::Key& key : config::schema::keys(document)) {
                keys.push_back(keyJson(key));
            }
            json[config::schema::toString(document)] = keys;
        }
        invocation.out << report::jsonText(json) << "\n";
        return Success;
    }
    for (config::schema::Document document : documents) {
        invocation.out << "## " << config::schema::toString(document) << "\n\n"
                       << config::schema::markdownTable(document) << "\n";
    }
    return Success;
}

} // namespace rapid::cli

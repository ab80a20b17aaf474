// SPDX-License-Identifier: GPL-3.0-or-later
#include "json.h"

#include <cmath>
#include <ostream>

namespace rapid::report {

namespace {

void checkFiniteAt(const Json& value, const std::string& path)
{
    if (value.is_number_float() && !std::isfinite(value.get<double>())) {
        throw NonFiniteJson(path.empty() ? std::string("(the document)") : path);
    }
    if (value.is_object()) {
        for (const auto& [key, item] : value.items()) {
            checkFiniteAt(item, path.empty() ? key : path + "." + key);
        }
    } else if (value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i) {
            checkFiniteAt(value[i], path + "[" + std::to_string(i) + "]");
        }
    }
}

} // namespace

NonFiniteJson::NonFiniteJson(const std::string& path)
    : std::domain_error("the result has no finite value for " + path + "; refusing to write it as JSON")
{
}

void checkFinite(const Json& document)
{
    checkFiniteAt(document, {});
}

std::string jsonText(const Json& document, int indent)
{
    checkFinite(document);
    return document.dump(indent, ' ', false, Json::error_handler_t::replace);
}

void writeJson(std::ostream& out, const Json& document, int indent)
{
    out << jsonText(document, indent) << "\n";
}

} // namespace rapid::report

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/modelspec.h"

#include <string>

namespace rapid::config {

/// Reads a local Hugging Face `config.json` of the Llama, Mistral, Qwen2, Mixtral or DeepSeek-V3 families (no
/// network access) into a ModelSpec. Throws config::ConfigError naming the file, line, column and JSON key on a
/// missing field, an unsupported architecture or malformed JSON.
config::ModelSpec importHuggingFaceConfig(const std::string& path);

/// The model document (root key `model:`) for @p model, as configs/README.md describes it.
std::string modelToYaml(const config::ModelSpec& model, const std::string& sourceComment);

} // namespace rapid::config

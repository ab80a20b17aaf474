// SPDX-License-Identifier: GPL-3.0-or-later
#include "evaluation/evaluationdiff.h"

#include "analysis/scenariodiff.h"

namespace rapid::widgets {

std::vector<std::string> evaluationDifferences(const Evaluation& reference, const Evaluation& other)
{
    std::vector<std::string> words;
    if (reference.scenario && other.scenario) {
        words = analysis::scenarioDifferences(*reference.scenario, *other.scenario);
    }
    // The same scenario on another network model is another figure: said like any other change.
    if (reference.backend != other.backend) {
        words.emplace_back(sim::toString(other.backend));
    }
    return words;
}

std::string differenceWords(const Evaluation& reference, const Evaluation& other)
{
    std::string text;
    for (const std::string& word : evaluationDifferences(reference, other)) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

} // namespace rapid::widgets

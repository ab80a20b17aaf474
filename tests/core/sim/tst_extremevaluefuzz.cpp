// SPDX-License-Identifier: GPL-3.0-or-later
// Extreme-value fuzzing of the whole evaluation: presets with one to three schema keys set to values at and beyond
// their declared ranges (minimum, maximum, one past, 2^31, 2^63-1, denormals, 1e308, NaN, words where numbers
// belong), then loaded, memory-estimated, evaluated and written as the `rapid run --json` document. Every input must
// end as a located ConfigError, an InputLimitError (a stated budget or ceiling), an UnreachableError (faults that
// cut GPUs apart) or a finite result whose JSON writes: never another exception, a crash, a sanitizer report or a
// non-finite number. Failures are collected (up to 20) so a long run reports more than the first; with
// UBSAN_OPTIONS=halt_on_error=0, undefined behaviour is printed ("runtime error") and the run goes on. The draw is
// seeded (RAPID_FUZZ_SEED, default 20261125) and bounded by time (RAPID_FUZZ_SECONDS, default 15; the fuzz-long test
// runs 3,600 s): a failure prints the overrides that reproduce it.
#include "analysis/evaluation.h"
#include "analysis/resultjson.h"
#include "config/schema.h"
#include "config/units.h"
#include "fuzzsettings.h"
#include "memory/memorymodel.h"
#include "network/router.h"
#include "testutils.h"

#include <QTest>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>

using namespace rapid;
using config::schema::Document;
using config::schema::Type;

namespace {

struct Base {
    const char* model;
    const char* hardware;
    const char* run;
};

// Training with TP/PP/DP on a fat tree, an MoE model, a single-GPU decode and a serving run: every branch of the
// evaluation (pipeline schedules, experts, KV cache, inference stages) meets the extreme values.
constexpr Base kBases[] = {
    { "llama-2-7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100" },
    { "llama-3.1-70b", "dgx-h100-superpod", "llama-3.1-70b-train-64" },
    { "mixtral-8x7b", "dgx-a100", "llama-3.1-70b-train-64" },
    { "llama-3.1-8b", "h100-sxm5-80gb", "llama-3.1-8b-decode-1gpu" },
    { "llama-3.1-8b", "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100" },
};

std::string number(double value)
{
    std::ostringstream text;
    text.precision(17);
    text << value;
    return text.str();
}

class ValueDraw {
public:
    explicit ValueDraw(std::mt19937_64& random)
        : m_random(random)
    {
    }

    std::string of(const config::schema::Key& key)
    {
        switch (key.type) {
        case Type::Integer:
            return integer(key);
        case Type::Number:
            return real(key.minimum, key.maximum, 1.0);
        case Type::Quantity:
            return quantity(key);
        case Type::Boolean:
            return pick({ "true", "false", "maybe" });
        case Type::Choice:
            return pick(1, 4) == 1 ? std::string("bogus") : key.choices[pick(0, key.choices.size() - 1)];
        default:
            return "0";
        }
    }

private:
    size_t pick(size_t low, size_t high) { return std::uniform_int_distribution<size_t>(low, high)(m_random); }
    std::string pick(std::initializer_list<const char*> words) { return *(words.begin() + pick(0, words.size() - 1)); }

    /// Log-uniform between two positive numbers.
    double logUniform(double low, double high)
    {
        low = std::max(low, 1e-300);
        high = std::max(high, low);
        return std::exp(std::uniform_real_distribution<double>(std::log(low), std::log(high))(m_random));
    }

    std::string integer(const config::schema::Key& key)
    {
        const auto low = static_cast<long long>(key.minimum);
        const auto high = static_cast<long long>(key.maximum);
        switch (pick(0, 9)) {
        case 0:
            return std::to_string(low);
        case 1:
            return std::to_string(high);
        case 2:
            return std::to_string(high + 1);
        case 3:
            return std::to_string(low - 1);
        case 4:
            return "2147483648";
        case 5:
            return "9223372036854775807";
        case 6:
            return "1e3";
        default:
            return std::to_string(static_cast<long long>(logUniform(std::max(1.0, key.minimum), key.maximum)));
        }
    }

    /// A plain number in the key's own scale (@p scale: SI units per written unit).
    std::string real(double low, double high, double scale)
    {
        switch (pick(0, 11)) {
        case 0:
            return number(low / scale);
        case 1:
            return number(high / scale);
        case 2:
            return number(low / scale * (1 + 1e-12) + 1e-300);
        case 3:
            return number(high / scale * 1.5);
        case 4:
            return "5e-324";
        case 5:
            return "1e-308";
        case 6:
            return "1.7976931348623157e308";
        case 7:
            return pick({ "nan", "-inf", "-0.0", "-1" });
        default:
            return number(logUniform(std::max(low, 1e-30), std::min(high, 1e30)) / scale);
        }
    }

    std::string quantity(const config::schema::Key& key)
    {
        const std::optional<double> scale = config::parseQuantity("1 " + key.unit, key.dimension, nullptr);
        return real(key.minimum, key.maximum, scale.value_or(1.0));
    }

    std::mt19937_64& m_random;
};

/// Every key an override can set with a value: its written path ("hardware.gpu.hbm.bandwidth_GBps"), network items
/// by index.
std::vector<std::pair<std::string, const config::schema::Key*>> settableKeys()
{
    std::vector<std::pair<std::string, const config::schema::Key*>> keys;
    for (Document document : config::schema::documents()) {
        for (const config::schema::Key& key : config::schema::keys(document)) {
            const bool valued = key.type == Type::Integer || key.type == Type::Number || key.type == Type::Quantity
                || key.type == Type::Boolean || key.type == Type::Choice;
            std::string path = config::schema::scenarioPrefix(document) + key.writtenPath();
            if (!valued || path.find("faults[]") != std::string::npos
                || path.find("stragglers[]") != std::string::npos) {
                continue;
            }
            for (const char* index : { "[0]", "[1]" }) {
                std::string item = path;
                if (const size_t at = item.find("[]"); at != std::string::npos) {
                    item.replace(at, 2, index);
                } else if (index[1] == '1') {
                    break;
                }
                keys.emplace_back(item, &key);
            }
        }
    }
    return keys;
}

bool finite(double value)
{
    return std::isfinite(value);
}

/// The figures a user reads must be finite and physical; returns what is wrong, or nothing.
std::string checkResult(const analysis::ScenarioEvaluation& evaluation, const memory::MemoryEstimate& memory)
{
    if (!finite(memory.peakBytes) || memory.peakBytes < 0) {
        return "memory peak " + number(memory.peakBytes);
    }
    if (evaluation.training) {
        const report::TrainingResult& training = *evaluation.training;
        if (!finite(training.stepTimeSeconds) || training.stepTimeSeconds <= 0) {
            return "step time " + number(training.stepTimeSeconds);
        }
        if (!finite(training.mfu) || training.mfu < 0 || training.mfu > 1) {
            return "MFU " + number(training.mfu);
        }
    }
    if (evaluation.inference) {
        const report::InferenceResult& inference = *evaluation.inference;
        if (!finite(inference.ttftSeconds) || inference.ttftSeconds <= 0 || !finite(inference.e2eSeconds)) {
            return "TTFT " + number(inference.ttftSeconds) + ", end to end " + number(inference.e2eSeconds);
        }
    }
    return {};
}

} // namespace

class TstExtremeValueFuzz : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyInputEndsAsAnErrorNamingItOrAFiniteResult()
    {
        std::mt19937_64 random(test::fuzzSeed());
        ValueDraw draw(random);
        const auto keys = settableKeys();
        const config::ConfigLoader loader = test::projectLoader();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(test::fuzzSeconds());
        long executions = 0;
        long rejected = 0;
        long limited = 0;
        long evaluated = 0;
        std::vector<std::string> failures;
        while (std::chrono::steady_clock::now() < deadline) {
            const Base& base = kBases[random() % std::size(kBases)];
            std::vector<std::string> overrides;
            const int count = 1 + static_cast<int>(random() % 3);
            for (int i = 0; i < count; ++i) {
                const auto& [path, key] = keys[random() % keys.size()];
                overrides.push_back(path + "=" + draw.of(*key));
            }
            std::string repro = std::string(base.model) + " " + base.hardware + " " + base.run;
            for (const std::string& assignment : overrides) {
                repro += " --set '" + assignment + "'";
            }
            ++executions;
            try {
                const config::Scenario scenario = loader.loadScenario(base.model, base.hardware, base.run, overrides);
                const memory::MemoryEstimate memory
                    = memory::estimateMemory(scenario.model, scenario.hardware.gpu, scenario.run);
                analysis::EvaluationOptions options;
                options.timeline = false;
                const analysis::ScenarioEvaluation evaluation = analysis::evaluateScenario(scenario, options);
                if (const std::string wrong = checkResult(evaluation, memory); !wrong.empty()) {
                    failures.push_back(wrong + " for " + repro);
                } else {
                    (void)report::jsonText(analysis::runResultJson(scenario, evaluation, memory));
                    ++evaluated;
                }
            } catch (const config::ConfigError&) {
                ++rejected;
            } catch (const config::InputLimitError&) {
                ++limited;
            } catch (const network::UnreachableError&) {
                ++limited;
            } catch (const std::exception& error) {
                failures.push_back(std::string(error.what()) + " for " + repro);
            }
            if (failures.size() >= 20) {
                break; // a long run reports every distinct failure, up to 20, not only the first
            }
        }
        qInfo("%ld executions (%.0f/s): %ld rejected by the loader, %ld past a budget or ceiling, %ld evaluated",
            executions, static_cast<double>(executions) / test::fuzzSeconds(), rejected, limited, evaluated);
        std::string report;
        for (const std::string& failure : failures) {
            report += failure + "\n";
        }
        QVERIFY2(failures.empty(), report.c_str());
        QVERIFY(evaluated > 0);
    }
};

QTEST_GUILESS_MAIN(TstExtremeValueFuzz)
#include "tst_extremevaluefuzz.moc"

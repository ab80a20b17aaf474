// SPDX-License-Identifier: GPL-3.0-or-later
// rapid goodput: what interruptions cost a whole training run, from the step time, the checkpoint size and a failure
// rate; the optimal checkpoint interval by Young, Daly and numerically; a discrete-event simulation of the run.
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "format.h"

#include "config/configloader.h"
#include "config/units.h"
#include "report/json.h"
#include "resilience/checkpointsize.h"
#include "resilience/failurerates.h"
#include "resilience/goodput.h"
#include "resilience/goodputsimulation.h"
#include "sim/stepmodel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>

namespace rapid::cli {

namespace {

/// PyTorch's default timeout of a NCCL collective (ProcessGroupNCCL, 10 minutes): a rank that died leaves its peers
/// waiting in the collective until then, unless something else notices first.
constexpr double kDefaultDetectSeconds = 600;
/// Meta's Tectonic file system as the Llama 3 run used it: 2 TB/s sustained, 7 TB/s peak (Llama 3 report, 3.3.1).
constexpr double kDefaultStorageBytesPerSecond = 2e12;

Arguments goodputArguments()
{
    return Arguments("goodput",
        "What interruptions cost a training run: the failure-free time from the step model, the checkpoint size from "
        "the model state, a failure rate (the Llama 3 405B run's unless --mtbf), the optimal checkpoint interval "
        "(Young, Daly and the exact optimum) and the expected and simulated share of wall time that trains.",
        scenarioOptions({ { "tokens", "N", "training tokens (e.g. 15.6e12); or --steps or --work", false },
            { "steps", "N", "optimizer steps", false },
            { "work", "TIME", "failure-free training time, e.g. 30d or 720h", false },
            { "mtbf", "TIME", "the job's mean time between interruptions (default: Llama 3's rate for the GPUs)",
                false },
            { "detect", "TIME", "time to notice an interruption (default 10min: PyTorch's NCCL timeout)", false },
            { "relaunch", "TIME", "time to replace the failed part and start the job again (default 0)", false },
            { "storage-bandwidth", "RATE", "checkpoint write and read bandwidth (default 2 TB/s, Llama 3's Tectonic)",
                false },
            { "checkpoint-interval", "TIME", "training time between checkpoints (default: the optimum)", false },
            { "trials", "N", "simulated runs (default 1000; 0: none)", false },
            { "seed", "N", "seed of the simulated interruptions (default 1)", false },
            { "json", "FILE", "write the figures as JSON (- for standard output)", false } }),
        "[WORKSPACE]");
}

/// A time with its unit: s, ms, us, ns (as configuration values), or min, h, d.
double timeOption(const Arguments& arguments, const std::string& name, double fallback)
{
    const auto text = arguments.value(name);
    if (!text) {
        return fallback;
    }
    const auto fail = [&] {
        throw UsageError("--" + name + " \"" + *text + "\": expected a time with its unit, e.g. 90s, 15min, 3h or 30d");
    };
    std::string number = *text;
    double scale = 1;
    for (const auto& [suffix, seconds] :
        { std::pair { "min", 60.0 }, std::pair { "h", 3600.0 }, std::pair { "d", 86400.0 } }) {
        const std::string unit = suffix;
        if (number.size() > unit.size() && number.compare(number.size() - unit.size(), unit.size(), unit) == 0) {
            number.resize(number.size() - unit.size());
            scale = seconds;
            break;
        }
    }
    double value = 0;
    if (scale != 1) {
        char* end = nullptr;
        value = std::strtod(number.c_str(), &end) * scale;
        while (end && std::isspace(static_cast<unsigned char>(*end))) {
            ++end;
        }
        if (end == number.c_str() || *end != '\0') {
            fail();
        }
    } else {
        std::string why;
        const bool hasUnit = std::any_of(
            text->begin(), text->end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
        const auto seconds = config::parseQuantity(*text, config::Dimension::Seconds, &why);
        if (!hasUnit || !seconds) {
            fail();
        }
        value = *seconds;
    }
    if (!std::isfinite(value) || value < 0 || value > 1e12) {
        throw UsageError("--" + name + " \"" + *text + "\": expected a time from 0 to 10^12 s");
    }
    return value;
}

/// Failure-free training time: --work, or --steps / --tokens times the step time.
double workSeconds(const Arguments& arguments, const config::Scenario& scenario, double stepSeconds)
{
    const int given
        = (arguments.value("tokens") ? 1 : 0) + (arguments.value("steps") ? 1 : 0) + (arguments.value("work") ? 1 : 0);
    if (given != 1) {
        throw UsageError("give one of --tokens, --steps and --work");
    }
    if (arguments.value("work")) {
        const double work = timeOption(arguments, "work", 0);
        if (work <= 0) {
            throw UsageError("--work must be a positive time");
        }
        return work;
    }
    double steps = 0;
    if (arguments.value("steps")) {
        steps = boundedNumber(arguments, "steps", 0, 1, 1e12);
    } else {
        const double tokensPerStep
            = static_cast<double>(scenario.run.globalBatch) * static_cast<double>(scenario.run.seqLength);
        steps = std::ceil(boundedNumber(arguments, "tokens", 0, 1, 1e18) / tokensPerStep);
    }
    return steps * stepSeconds;
}

std::string duration(double seconds)
{
    char text[48];
    if (seconds >= 2 * 86400) {
        std::snprintf(text, sizeof text, "%.2f days", seconds / 86400);
    } else if (seconds >= 2 * 3600) {
        std::snprintf(text, sizeof text, "%.2f h", seconds / 3600);
    } else {
        std::snprintf(text, sizeof text, "%.1f s", seconds);
    }
    return text;
}

std::string percent(double fraction)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.2f%%", fraction * 100);
    return text;
}

struct GoodputFigures {
    double stepSeconds = 0;
    int gpus = 0;
    resilience::CheckpointedRun run;
    bool mtbfFromRecord = true;
    double checkpointBytes = 0;
    double detectSeconds = 0;
    double relaunchSeconds = 0;
    double storageBytesPerSecond = 0;
    double young = 0;
    double daly = 0;
    double optimum = 0;
    double interval = 0;
    double expectedWall = 0;
    std::optional<resilience::RunStudy> simulated;
};

void print(std::ostream& out, const config::Scenario& scenario, const GoodputFigures& f)
{
    const resilience::FailureRecord& record = resilience::llama3Interruptions();
    out << "scenario   " << scenario.name << ": " << f.gpus << " GPUs, step " << duration(f.stepSeconds)
        << " (analytical backend)\n";
    out << "work       " << duration(f.run.workSeconds) << " failure-free\n";
    if (f.mtbfFromRecord) {
        out << "failures   one interruption every " << duration(f.run.mtbfSeconds) << " (the Llama 3 405B run's "
            << record.interruptions() << " in " << config::formatNumber(record.days) << " days on " << record.gpus
            << " GPUs, per GPU)\n";
    } else {
        out << "failures   one interruption every " << duration(f.run.mtbfSeconds) << " (--mtbf)\n";
    }
    out << "checkpoint " << formatBytes(f.checkpointBytes) << " of model state at "
        << config::formatNumber(f.storageBytesPerSecond / 1e9) << " GB/s: " << duration(f.run.checkpointSeconds)
        << " to write\n";
    out << "restart    " << duration(f.run.restartSeconds) << " = detection " << duration(f.detectSeconds)
        << " + relaunch " << duration(f.relaunchSeconds) << " + reading the checkpoint "
        << duration(f.run.checkpointSeconds) << "\n";
    out << "interval   Young " << duration(f.young) << ", Daly " << duration(f.daly) << ", exact optimum "
        << duration(f.optimum) << "; used " << duration(f.interval) << "\n";
    const double expectedFraction = f.run.workSeconds / f.expectedWall;
    out << "expected   " << percent(expectedFraction) << " of wall time trains; " << duration(f.expectedWall)
        << " to train (" << duration(f.expectedWall - f.run.workSeconds) << " lost)\n";
    if (f.simulated) {
        const resilience::RunStudy& s = *f.simulated;
        out << "simulated  " << s.trials << " runs: " << percent(s.meanEffectiveFraction) << " (p10 "
            << percent(s.p10EffectiveFraction) << ", p90 " << percent(s.p90EffectiveFraction) << "), "
            << config::formatNumber(std::round(s.meanInterruptions)) << " interruptions per run\n";
    }
    out << "by interval (expected share of wall time that trains)\n";
    for (const double factor : { 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0 }) {
        const double interval = factor * f.optimum;
        out << "  " << duration(interval) << (factor == 1.0 ? " (optimum)" : "") << "  "
            << percent(resilience::expectedEffectiveFraction(f.run, interval)) << "\n";
    }
}

report::Json toJson(const config::Scenario& scenario, const GoodputFigures& f)
{
    report::Json json;
    json["scenario"] = scenario.name;
    json["gpus"] = f.gpus;
    json["step_time_s"] = f.stepSeconds;
    json["work_s"] = f.run.workSeconds;
    json["mtbf_s"] = f.run.mtbfSeconds;
    json["mtbf_source"] = f.mtbfFromRecord ? resilience::llama3Interruptions().source : std::string("--mtbf");
    json["checkpoint_bytes"] = f.checkpointBytes;
    json["checkpoint_s"] = f.run.checkpointSeconds;
    json["restart_s"] = f.run.restartSeconds;
    json["interval_s"] = { { "young", f.young }, { "daly", f.daly }, { "optimum", f.optimum }, { "used", f.interval } };
    json["expected_wall_s"] = f.expectedWall;
    json["expected_effective_fraction"] = f.run.workSeconds / f.expectedWall;
    if (f.simulated) {
        json["simulated"] = { { "trials", f.simulated->trials }, { "mean_wall_s", f.simulated->meanWallSeconds },
            { "effective_fraction", f.simulated->meanEffectiveFraction },
            { "p10_effective_fraction", f.simulated->p10EffectiveFraction },
            { "p90_effective_fraction", f.simulated->p90EffectiveFraction },
            { "mean_interruptions", f.simulated->meanInterruptions } };
    }
    return json;
}

} // namespace

int goodputCommand(const Invocation& invocation)
{
    Arguments arguments = goodputArguments();
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::Scenario scenario = loadScenario(arguments, loader);
    if (scenario.run.mode != config::RunMode::Training) {
        invocation.err << "rapid goodput: run.mode: goodput over a training run needs a training run\n";
        return InputError;
    }
    GoodputFigures f;
    sim::StepModel stepModel(scenario);
    f.stepSeconds = stepModel.training(false).stepTimeSeconds;
    f.gpus = scenario.run.parallelism.gpuCount();
    f.run.workSeconds = workSeconds(arguments, scenario, f.stepSeconds);
    f.mtbfFromRecord = !arguments.value("mtbf");
    f.run.mtbfSeconds = f.mtbfFromRecord ? resilience::jobMtbfSeconds(resilience::llama3Interruptions(), f.gpus)
                                         : timeOption(arguments, "mtbf", 0);
    if (f.run.mtbfSeconds <= 0) {
        throw UsageError("--mtbf must be a positive time");
    }
    f.storageBytesPerSecond = kDefaultStorageBytesPerSecond;
    if (auto text = arguments.value("storage-bandwidth")) {
        std::string why;
        const auto rate = config::parseQuantity(*text, config::Dimension::BytesPerSecond, &why);
        if (!rate || *rate <= 0 || *rate > 1e18) {
            throw UsageError("--storage-bandwidth \"" + *text + "\": expected a rate such as 2 TB/s or 400 GB/s");
        }
        f.storageBytesPerSecond = *rate;
    }
    f.checkpointBytes = resilience::checkpointBytes(scenario.model, scenario.run);
    f.run.checkpointSeconds = f.checkpointBytes / f.storageBytesPerSecond;
    f.detectSeconds = timeOption(arguments, "detect", kDefaultDetectSeconds);
    f.relaunchSeconds = timeOption(arguments, "relaunch", 0);
    f.run.restartSeconds = f.detectSeconds + f.relaunchSeconds + f.run.checkpointSeconds;
    f.young = resilience::youngInterval(f.run.checkpointSeconds, f.run.mtbfSeconds);
    f.daly = resilience::dalyInterval(f.run.checkpointSeconds, f.run.mtbfSeconds);
    f.optimum = resilience::optimalInterval(f.run);
    f.interval = timeOption(arguments, "checkpoint-interval", f.optimum);
    if (f.interval <= 0) {
        throw UsageError("--checkpoint-interval must be a positive time");
    }
    f.expectedWall = resilience::expectedWallSeconds(f.run, f.interval);
    const long long trials = arguments.integer("trials", 1000);
    if (trials < 0 || trials > 10'000'000) {
        throw UsageError("--trials " + std::to_string(trials) + ": expected 0 to 10000000");
    }
    const long long seed = arguments.integer("seed", 1);
    if (trials > 0) {
        try {
            f.simulated = resilience::simulateRuns(
                f.run, f.interval, static_cast<int>(trials), static_cast<std::uint64_t>(seed));
        } catch (const std::invalid_argument& error) {
            invocation.err << "rapid goodput: " << error.what() << "\n";
            return InputError;
        }
    }
    print(invocation.out, scenario, f);
    if (!writeOutput(arguments.value("json"), invocation, "goodput",
            [&](std::ostream& out) { report::writeJson(out, toJson(scenario, f)); })) {
        return InputError;
    }
    return Success;
}

} // namespace rapid::cli

// SPDX-License-Identifier: GPL-3.0-or-later
// rapid sweep: evaluates the Cartesian product of override axes (and, optionally, every parallel split of the GPUs)
// on top of one scenario with the analytical backend, prunes what does not fit, ranks the rest and marks the Pareto
// front. Tables on stdout; every point streamed to --csv / --json as it finishes; SIGINT/SIGTERM stop it cleanly.
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "format.h"
#include "stopsignals.h"
#include "sweepfiles.h"

#include "config/workspacefile.h"
#include "sweep/splitadaptation.h"
#include "sweep/sweepoutput.h"
#include "sweep/sweeprunner.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

namespace rapid::cli {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (!item.empty()) {
            items.push_back(item);
        }
    }
    return items;
}

std::string shortName(const std::string& key)
{
    return key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
}

/// Up to @p limit of @p rows as a table: one column per axis (as wide as its name, 8 or its longest value shown), then
/// the figures; "*" marks the Pareto front.
void printRows(std::ostream& out, const sweep::SweepSpace& space, const std::vector<sweep::SweepRow>& rows, int limit)
{
    const bool inference = rows.front().inference;
    const size_t shown = std::min(rows.size(), static_cast<size_t>(std::max(0, limit)));
    std::vector<size_t> widths;
    for (size_t axis = 0; axis < space.axes().size(); ++axis) {
        size_t width = std::max<size_t>(shortName(space.axes()[axis].name).size(), 8);
        for (size_t i = 0; i < shown; ++i) {
            width = std::max(width, sweep::valueLabel(space, rows[i], axis).size());
        }
        widths.push_back(width);
    }
    std::string header = "  ";
    for (size_t axis = 0; axis < space.axes().size(); ++axis) {
        std::string name = shortName(space.axes()[axis].name);
        name.resize(widths[axis], ' ');
        header += name + " ";
    }
    out << header << (inference ? "      TTFT s      ITL ms     e2e s" : "      step s     MFU %")
        << "   tok/s/GPU  mem GiB\n";
    for (size_t i = 0; i < shown; ++i) {
        const sweep::SweepRow& row = rows[i];
        std::string line = row.pareto ? "* " : "  ";
        for (size_t axis = 0; axis < space.axes().size(); ++axis) {
            std::string value = sweep::valueLabel(space, row, axis);
            value.resize(widths[axis], ' ');
            line += value + " ";
        }
        char numbers[160];
        if (inference) {
            std::snprintf(numbers, sizeof numbers, "%12.4g %11.4g %9.4g %11.4g %8.1f", row.ttftSeconds,
                row.itlSeconds * 1e3, row.e2eSeconds, row.tokensPerSecondPerGpu, row.peakMemoryBytes / kGiB);
        } else {
            std::snprintf(numbers, sizeof numbers, "%12.4g %9.1f %11.4g %8.1f", row.stepTimeSeconds, 100 * row.mfu,
                row.tokensPerSecondPerGpu, row.peakMemoryBytes / kGiB);
        }
        out << line << numbers << "\n";
    }
}

/// The best rows by throughput per GPU (SweepResult::top), then the Pareto front (at most @p top rows of each).
void printTables(std::ostream& out, const sweep::SweepResult& result, int top)
{
    if (result.paretoFront.empty()) {
        return;
    }
    const char* cost = result.paretoFront.front().inference ? "end-to-end latency" : "memory peak";
    if (!result.top.empty()) {
        out << "best " << result.top.size()
            << " by tokens/s per GPU (* = on the Pareto front of throughput per GPU and " << cost << ")\n";
        printRows(out, result.space, result.top, top);
    }
    const size_t front = result.paretoFront.size();
    out << "Pareto front of throughput per GPU and " << cost << ": " << front << " point" << (front == 1 ? "" : "s");
    if (top > 0 && front > static_cast<size_t>(top)) {
        out << " (the first " << top << " shown; all in --json's pareto_front)";
    }
    out << "\n";
    if (top > 0) {
        printRows(out, result.space, result.paretoFront, top);
    }
}

Arguments sweepArguments()
{
    return Arguments("sweep",
        "Evaluates every combination of the --vary axes (and --splits) on top of one scenario with the analytical "
        "backend: configurations that are invalid or do not fit in GPU memory are reported and pruned, the rest "
        "ranked by throughput per GPU, with the Pareto front of throughput against memory (training) or latency "
        "(inference) marked. --csv and --json are written as the points finish, in index order (docs/json-output.md); "
        "memory does not grow with the number of points. SIGINT (Ctrl-C) or SIGTERM stops the sweep: the points in "
        "flight finish, the files are completed and say it was interrupted, the summary covers the points run, and "
        "rapid exits with 130 (SIGINT) or 143 (SIGTERM); a second signal ends it at once, and one ignored when rapid "
        "started (a background job of a script, nohup) stays ignored.",
        scenarioOptions({ { "vary", "KEY=VALUES",
                              "an axis: an override key and its values, e.g. run.parallelism.tp=1,2,4,8, "
                              "run.training.micro_batch=1..8:x2 or run.training.recompute=none,selective,full",
                              true },
            { "splits", "AXES",
                "an axis of every split of the hardware's GPUs over these parallel axes, e.g. tp,pp,dp (their "
                "product is the GPU count)",
                false },
            { "max-tp", "N", "with --splits: largest tensor-parallel degree (default: GPUs per node)", false },
            { "threads", "N", "worker threads (default: one per hardware thread)", false },
            { "no-prune", "", "evaluate time even for configurations that do not fit in memory", false },
            { "top", "N", "rows of the ranking and of the Pareto front to print (default 10)", false },
            { "csv", "FILE",
                "write every point as CSV while the sweep runs (- for standard output: the tables then go to "
                "standard error)",
                false },
            { "json", "FILE",
                "write every point as JSON while the sweep runs, the Pareto front's indices at the end (- for "
                "standard output)",
                false } }),
        "[WORKSPACE]");
}

/// The space the options describe: the --splits axis (every split of the hardware's GPUs) first, then the --vary axes.
sweep::SweepSpace sweepSpaceOf(const Arguments& arguments, const config::Scenario& base)
{
    // Axes are parsed before anything is evaluated, so a typo is reported at once.
    std::vector<sweep::SweepAxis> axes;
    for (const std::string& specification : arguments.values("vary")) {
        try {
            axes.push_back(sweep::parseSweepAxis(specification));
        } catch (const std::invalid_argument& error) {
            throw UsageError(std::string("--vary: ") + error.what());
        }
    }
    if (auto splitAxes = arguments.value("splits")) {
        const std::vector<std::string> names = splitList(*splitAxes);
        static const std::set<std::string> kKnown = { "tp", "pp", "dp", "cp", "ep" };
        for (const std::string& name : names) {
            if (!kKnown.count(name)) {
                throw UsageError("--splits: \"" + name + "\" is not a parallel axis (tp, pp, dp, cp, ep)");
            }
        }
        const int maxTp = static_cast<int>(arguments.integer("max-tp", base.hardware.cluster.gpusPerNode));
        try {
            axes.insert(axes.begin(), sweep::parallelSplits(base.hardware.cluster.totalGpus(), names, maxTp));
            sweep::adaptSplits(axes.front(), base.model, base.run);
        } catch (const std::invalid_argument& error) {
            throw UsageError(std::string("--splits: ") + error.what());
        }
    }
    sweep::SweepSpace space;
    try {
        space = sweep::SweepSpace(axes);
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }
    return space;
}

/// The scenario every point starts from, read once: the --model/--hardware/--run documents or the workspace's.
std::unique_ptr<config::ScenarioTemplate> scenarioTemplateOf(
    const Arguments& arguments, const config::ConfigLoader& loader)
{
    // Each point loads the scenario's documents with its overrides after the command's own (as --set would); the
    // documents are read once and parsed once per worker (config::ScenarioTemplate).
    const auto workspace = arguments.positional().empty() ? arguments.value("workspace")
                                                          : std::optional<std::string>(arguments.positional().front());
    std::unique_ptr<config::ScenarioTemplate> scenarioTemplate;
    if (arguments.value("model")) {
        const config::PresetKind kinds[3]
            = { config::PresetKind::Model, config::PresetKind::Hardware, config::PresetKind::Run };
        const std::string references[3]
            = { arguments.required("model"), arguments.required("hardware"), arguments.required("run") };
        config::DocumentText texts[3];
        for (int i = 0; i < 3; ++i) {
            const auto path = loader.library().resolve(kinds[i], references[i]);
            std::ifstream in(path.value_or(""), std::ios::binary);
            if (!path || !in) {
                throw UsageError("cannot read \"" + references[i] + "\"");
            }
            std::ostringstream text;
            text << in.rdbuf();
            texts[i] = { text.str(), *path, std::filesystem::path(*path).parent_path().string() };
        }
        scenarioTemplate
            = std::make_unique<config::ScenarioTemplate>(loader, texts[0], texts[1], texts[2], arguments.values("set"));
    } else {
        config::WorkspaceDocuments documents
            = config::readWorkspaceDocuments(workspace.value_or("llama-3.1-70b-64xh100"), loader.library());
        std::vector<std::string> overrides = documents.overrides;
        for (const std::string& assignment : arguments.values("set")) {
            overrides.push_back(assignment);
        }
        scenarioTemplate = std::make_unique<config::ScenarioTemplate>(
            loader, documents.model, documents.hardware, documents.run, overrides);
    }
    return scenarioTemplate;
}

/// What ran: the points, how they ended, how long it took, and the distinct reasons points were rejected.
void printSummary(
    std::ostream& out, const config::Scenario& base, const sweep::SweepResult& result, long long threads, int signal)
{
    const sweep::SweepSpace& space = result.space;
    out << "scenario   " << base.name << "\n";
    out << "sweep      " << space.size() << " points over " << space.axes().size() << " axes:";
    for (const sweep::SweepAxis& axis : space.axes()) {
        out << " " << axis.name << " (" << axis.values.size() << ")";
    }
    char line[240];
    std::snprintf(line, sizeof line,
        "\nevaluated  %lld ok, %lld do not fit, %lld invalid, %lld failed in %.3f s (%.1f us per point, %lld "
        "threads)\n",
        static_cast<long long>(result.count(sweep::PointStatus::Ok)),
        static_cast<long long>(result.count(sweep::PointStatus::DoesNotFit)),
        static_cast<long long>(result.count(sweep::PointStatus::Invalid)),
        static_cast<long long>(result.count(sweep::PointStatus::Failed)), result.seconds,
        1e6 * result.seconds / static_cast<double>(std::max<std::int64_t>(1, result.pointsRun())),
        threads > 0 ? threads : static_cast<long long>(std::max(1u, std::thread::hardware_concurrency())));
    out << line;
    if (result.cancelled) {
        out << "interrupted by " << StopSignals::name(signal) << " after " << result.pointsRun() << " of "
            << space.size() << " points (the figures below are of those)\n";
    }
    // The distinct reasons points were rejected, so a sweep of mostly invalid points explains itself.
    for (const sweep::SweepRow& row : result.rejections) {
        out << "  " << sweep::toString(row.status) << ": " << row.message << "\n";
    }
}

} // namespace

int sweepCommand(const Invocation& invocation)
{
    Arguments arguments = sweepArguments();
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const long long top = arguments.integer("top", 10);
    const long long threads = arguments.integer("threads", 0);
    if (top < 0 || threads < 0) {
        throw UsageError("--top and --threads take a non-negative number");
    }
    if (arguments.value("csv") == "-" && arguments.value("json") == "-") {
        throw UsageError("--csv and --json cannot both write to standard output");
    }
    // The base scenario must be valid on its own: it names the hardware the splits divide.
    const config::Scenario base = loadScenario(arguments, loader);
    const sweep::SweepSpace space = sweepSpaceOf(arguments, base);
    const std::unique_ptr<config::ScenarioTemplate> scenarioTemplate = scenarioTemplateOf(arguments, loader);
    const sweep::ScenarioFactory factory
        = [&](const std::vector<std::string>& overrides) { return scenarioTemplate->load(overrides); };
    // Output files are opened before the sweep runs, so an unwritable path does not cost the whole sweep.
    SweepFiles files(space);
    if (auto unwritable = files.open(arguments.value("csv"), arguments.value("json"), invocation)) {
        invocation.err << "rapid sweep: cannot write " << *unwritable << "\n";
        return InputError;
    }
    const StopSignals signals;
    sweep::SweepOptions options;
    options.threads = static_cast<int>(threads);
    options.pruneByMemory = !arguments.flag("no-prune");
    options.stop = &signals.flag();
    options.keepRows = false; // the rows go to the files as they finish: memory does not grow with the points
    options.keepTop = static_cast<int>(std::min<long long>(top, 1 << 20));
    options.rowSink = [&files](const sweep::SweepRow& row) { files.row(row); };
    files.begin();
    const sweep::SweepResult result = sweep::runSweep(space, factory, options);
    const auto failed = files.finish(result);

    // With a file on standard output, the tables go to standard error and leave it a clean CSV or JSON.
    std::ostream& out = files.writesToStandardOutput() ? invocation.err : invocation.out;
    printSummary(out, base, result, threads, signals.caught());
    printTables(out, result, static_cast<int>(top));
    if (failed) {
        invocation.err << "rapid sweep: writing " << *failed << " failed\n";
        return InputError;
    }
    if (signals.caught() != 0) {
        return StopSignals::exitCode(signals.caught());
    }
    return result.count(sweep::PointStatus::Ok) > 0 ? Success : InputError;
}

} // namespace rapid::cli

// SPDX-License-Identifier: GPL-3.0-or-later
// rapid resilience: Monte Carlo fault studies (k links of health h drawn within link classes, the step-time
// distribution per (k, h)) and the criticality map (each link alone degraded or failed, ranked). Trials split over MPI
// ranks when launched by mpirun (mpisplit.h).
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "mpisplit.h"

#include "config/configloader.h"
#include "config/units.h"
#include "network/topology.h"
#include "report/json.h"
#include "resilience/faultstudy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>

namespace rapid::cli {

namespace {

Arguments resilienceArguments()
{
    return Arguments("resilience",
        "How faulty links slow a training step. For every k in --faulty-links and h in --health, --trials draws of k "
        "distinct links from the chosen classes set to health h (0: failed and routed around) give the step-time "
        "slowdown distribution; --criticality ranks every link by the slowdown it causes alone. Under mpirun the "
        "trials are shared among the processes and gathered on rank 0 (the same result as one process).",
        scenarioOptions({ { "faulty-links", "K[,K...]", "links degraded per trial (default 1)", false },
            { "health", "H[,H...]", "health of a faulty link, 0 (failed) to below 1 (default 0.5)", false },
            { "class", "NAME",
                "draw only from this link class (repeatable; default every link class, not the node NIC classes; see "
                "--list-classes)",
                true },
            { "list-classes", "", "list the network's link classes and their link counts, then stop", false },
            { "slow-gpus", "F[,F...]", "straggler study instead: this share of the GPUs (at least one) is slow",
                false },
            { "slowdown", "S[,S...]", "straggler study: a slow GPU's kernels take S times as long (default 1.5)",
                false },
            { "trials", "N", "Monte Carlo trials per (k, h) (default 100)", false },
            { "seed", "N", "seed of the draws (default 1)", false },
            { "backend", "NAME", "congestion (default) or analytical", false },
            { "criticality", "", "rank each link alone at the first --health instead of drawing trials", false },
            { "max-links", "N", "criticality: time at most N links, sampled evenly per class (default 2000)", false },
            { "threads", "N", "threads per process (default: one per core)", false },
            { "json", "FILE", "write the results as JSON (- for standard output)", false } }),
        "[WORKSPACE]");
}

template <typename T> std::vector<T> listOption(const Arguments& arguments, const std::string& name, T fallback)
{
    const auto text = arguments.value(name);
    if (!text) {
        return { fallback };
    }
    std::vector<T> values;
    std::stringstream stream(*text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        char* end = nullptr;
        const double value = std::strtod(item.c_str(), &end);
        // Bounded before the conversion: a double beyond int's range has no int value.
        if (item.empty() || *end != '\0' || !std::isfinite(value) || std::abs(value) > 1e9) {
            throw UsageError("--" + name + " \"" + *text + "\": expected a comma-separated list of numbers up to 10^9");
        }
        values.push_back(static_cast<T>(value));
        if (static_cast<double>(values.back()) != value) {
            throw UsageError("--" + name + " \"" + item + "\": expected a whole number");
        }
    }
    return values;
}

std::string ratio(double value)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.4f", value);
    return text;
}

/// The mean, p50, p90, p99 and max columns of a study row; "-" when every trial cut GPUs apart (no slowdown).
std::string slowdownColumns(const resilience::FaultStudyResult& result)
{
    std::string text;
    const bool anyConnected = result.disconnected < static_cast<int>(result.trials.size());
    for (const double value :
        { result.meanSlowdown, result.p50Slowdown, result.p90Slowdown, result.p99Slowdown, result.maxSlowdown }) {
        text += anyConnected ? "  " + ratio(value) : std::string("       -");
    }
    return text;
}

report::Json studyJson(const resilience::FaultStudySpec& spec, const resilience::FaultStudyResult& result)
{
    report::Json json = spec.slowGpus > 0
        ? report::Json { { "slow_gpus", spec.slowGpus }, { "slowdown_factor", spec.slowdown } }
        : report::Json { { "faulty_links", spec.faultyLinks }, { "health", spec.health } };
    // Slowdowns summarise the connected trials: with none, there is no slowdown to state (null, not 0).
    const bool anyConnected = result.disconnected < static_cast<int>(result.trials.size());
    json.update(report::Json { { "trials", result.trials.size() }, { "disconnected", result.disconnected },
        { "slowdown",
            anyConnected ? report::Json { { "mean", result.meanSlowdown }, { "p50", result.p50Slowdown },
                { "p90", result.p90Slowdown }, { "p99", result.p99Slowdown }, { "max", result.maxSlowdown } }
                         : report::Json() } });
    report::Json steps = report::Json::array();
    for (const resilience::FaultTrial& trial : result.trials) {
        // A trial whose links cut GPUs apart has no step time: null (the core marks it with 0 seconds).
        const report::Json step = trial.disconnected ? report::Json() : report::Json(trial.stepSeconds);
        steps.push_back(spec.slowGpus > 0 ? report::Json { { "slow_gpus", trial.slowGpus }, { "step_time_s", step } }
                                          : report::Json { { "links", trial.links }, { "step_time_s", step } });
    }
    json["trial_results"] = std::move(steps);
    return json;
}

int listClasses(const config::Scenario& scenario, std::ostream& out)
{
    const network::Topology topology(scenario.hardware);
    for (const resilience::LinkClass& linkClass : resilience::linkClasses(topology)) {
        if (linkClass.groups.empty()) {
            out << linkClass.name << "  (" << linkClass.physicalLinks.size() << " links, e.g. "
                << topology.linkId(2 * linkClass.physicalLinks.front()) << ")\n";
        } else {
            // A node NIC class draws whole nodes' NICs; only when named with --class.
            out << linkClass.name << "  (" << linkClass.groups.size() << " nodes of " << linkClass.groups.front().size()
                << " NIC links, e.g. " << topology.linkId(2 * linkClass.groups.front().front())
                << "; only with --class)\n";
        }
    }
    return Success;
}

int criticality(const Arguments& arguments, const config::Scenario& scenario, const resilience::FaultStudySpec& spec,
    unsigned threads, const Invocation& invocation)
{
    const int maxLinks = static_cast<int>(boundedInteger(arguments, "max-links", 2000, 1, 1'000'000));
    const std::vector<resilience::LinkCriticality> ranked
        = resilience::linkCriticality(scenario, spec.health, spec.backend, spec.classes, maxLinks, threads);
    std::ostream& out = invocation.out;
    out << "criticality: each link alone at health " << config::formatNumber(spec.health) << ", "
        << sim::toString(spec.backend) << " backend, " << ranked.size() << " links\n";
    if (ranked.empty()) {
        out << "  the hardware has no links to fail (one GPU, no network)\n";
    } else {
        out << "  rank  slowdown  class                 link\n";
    }
    for (std::size_t i = 0; i < ranked.size() && i < 20; ++i) {
        char line[64];
        std::snprintf(line, sizeof line, "  %4zu  %8s  ", i + 1,
            ranked[i].disconnects ? "cut off" : ratio(ranked[i].slowdown).c_str());
        out << line << ranked[i].linkClass
            << std::string(ranked[i].linkClass.size() < 22 ? 22 - ranked[i].linkClass.size() : 1, ' ')
            << ranked[i].linkId << "\n";
    }
    if (auto path = arguments.value("json")) {
        report::Json json = report::Json::array();
        for (const resilience::LinkCriticality& link : ranked) {
            json.push_back({ { "link", link.linkId }, { "links", link.links }, { "class", link.linkClass },
                { "slowdown", link.slowdown }, { "disconnects", link.disconnects } });
        }
        if (!writeOutput(path, invocation, "resilience", [&](std::ostream& file) {
                report::writeJson(file, report::Json { { "scenario", scenario.name }, { "criticality", json } });
            })) {
            return InputError;
        }
    }
    return Success;
}

/// One row of the table: a study spec and its first two columns.
struct StudyRow {
    resilience::FaultStudySpec spec;
    std::string first;
    std::string second;
};

/// The rows: every (k, h) of a link study, or every (share, slowdown) of a straggler study (--slow-gpus).
std::vector<StudyRow> studyRows(const Arguments& arguments, const resilience::FaultStudySpec& base, int gpus)
{
    std::vector<StudyRow> rows;
    if (arguments.value("slow-gpus")) {
        for (const double share : listOption<double>(arguments, "slow-gpus", 0.0)) {
            if (!(share > 0) || share > 1) {
                throw UsageError("--slow-gpus " + config::formatNumber(share) + ": expected a share above 0, up to 1");
            }
            for (const double slowdown : listOption<double>(arguments, "slowdown", 1.5)) {
                if (slowdown < 1 || slowdown > 1000) {
                    throw UsageError("--slowdown " + config::formatNumber(slowdown) + ": expected 1 to 1000");
                }
                StudyRow row { base, "", "" };
                row.spec.slowGpus = std::max(1, static_cast<int>(std::lround(share * gpus)));
                row.spec.slowdown = slowdown;
                row.first = std::to_string(row.spec.slowGpus);
                row.second = "x" + config::formatNumber(slowdown);
                rows.push_back(std::move(row));
            }
        }
        return rows;
    }
    for (const int k : listOption<int>(arguments, "faulty-links", 1)) {
        if (k < 1 || k > 1'000'000) {
            throw UsageError("--faulty-links " + std::to_string(k) + ": expected 1 to 1000000");
        }
        for (const double h : listOption<double>(arguments, "health", 0.5)) {
            if (h < 0 || h >= 1) {
                throw UsageError("--health " + config::formatNumber(h) + ": expected 0 (failed) to below 1");
            }
            StudyRow row { base, std::to_string(k), config::formatNumber(h) };
            row.spec.faultyLinks = k;
            row.spec.health = h;
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

} // namespace

int resilienceCommand(const Invocation& invocation)
{
    Arguments arguments = resilienceArguments();
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::Scenario scenario = loadScenario(arguments, loader);
    if (arguments.flag("list-classes")) {
        return listClasses(scenario, invocation.out);
    }
    if (scenario.run.mode != config::RunMode::Training) {
        invocation.err << "rapid resilience: run.mode: fault studies time a training step; give a training run\n";
        return InputError;
    }
    resilience::FaultStudySpec spec;
    const std::string backendName = arguments.value("backend").value_or("congestion");
    const std::optional<sim::NetworkBackend> backend = sim::parseNetworkBackend(backendName);
    if (!backend || *backend == sim::NetworkBackend::Ideal) {
        throw UsageError("--backend \"" + backendName + "\": expected congestion or analytical");
    }
    spec.backend = *backend;
    spec.classes = arguments.values("class");
    spec.trials = static_cast<int>(boundedInteger(arguments, "trials", 100, 1, 10'000'000));
    spec.seed = static_cast<std::uint64_t>(boundedInteger(arguments, "seed", 1, 0, INT64_MAX));
    const auto threads = static_cast<unsigned>(boundedInteger(arguments, "threads", 0, 0, 4096));
    const std::vector<StudyRow> rows = studyRows(arguments, spec, scenario.run.parallelism.gpuCount());
    MpiSplit mpi;
    try {
        if (arguments.flag("criticality")) {
            spec.health = rows.front().spec.health;
            return mpi.isRoot() ? criticality(arguments, scenario, spec, threads, invocation) : Success;
        }
        report::Json studies = report::Json::array();
        std::ostream& out = invocation.out;
        const bool stragglers = rows.front().spec.slowGpus > 0;
        // Every row's classes and counts checked before the table starts, so an error is not printed under it.
        const network::Topology topology(scenario.hardware);
        for (const StudyRow& row : rows) {
            resilience::faultPool(topology, row.spec);
        }
        if (mpi.isRoot()) {
            out << (stragglers ? "straggler study: " : "fault study: ") << scenario.name << ", "
                << sim::toString(spec.backend) << " backend, " << spec.trials << " trials per row"
                << (mpi.size() > 1 ? " on " + std::to_string(mpi.size()) + " processes" : "")
                << (stragglers ? "\nslow GPUs  slowdown" : "\n   k  health  connected  cut off")
                << "    mean     p50     p90     p99     max   (step slowdown)\n";
        }
        for (const StudyRow& row : rows) {
            const resilience::FaultStudyResult result = mpi.runFaultStudy(scenario, row.spec, threads);
            if (!mpi.isRoot()) {
                continue;
            }
            char line[192];
            if (stragglers) {
                std::snprintf(line, sizeof line, "%9s  %8s", row.first.c_str(), row.second.c_str());
            } else {
                std::snprintf(line, sizeof line, "%4s  %6s  %9zu  %7d", row.first.c_str(), row.second.c_str(),
                    result.trials.size() - static_cast<std::size_t>(result.disconnected), result.disconnected);
            }
            out << line << slowdownColumns(result) << "\n";
            studies.push_back(studyJson(row.spec, result));
            studies.back()["baseline_step_time_s"] = result.baselineSeconds;
        }
        if (auto path = arguments.value("json"); path && mpi.isRoot()) {
            const report::Json document { { "scenario", scenario.name }, { "backend", sim::toString(spec.backend) },
                { "seed", spec.seed }, { "studies", studies } };
            if (!writeOutput(
                    path, invocation, "resilience", [&](std::ostream& file) { report::writeJson(file, document); })) {
                return InputError;
            }
        }
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid resilience: " << error.what() << "\n";
        return InputError;
    }
    return Success;
}

} // namespace rapid::cli

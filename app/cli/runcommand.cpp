// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "format.h"
#include "ranklist.h"

#include "analysis/evaluation.h"
#include "analysis/resultjson.h"
#include "analysis/stepexport.h"
#include "config/configloader.h"
#include "config/units.h"
#include "graph/chakraexport.h"
#include "graph/chakrawriter.h"
#include "graph/trainingstep.h"
#include "memory/memorymodel.h"
#include "model/modelstats.h"
#include "network/topology.h"
#include "parallel/placement.h"
#include "sim/congestionnetwork.h"
#include "sim/stepmodel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <ostream>

namespace rapid::cli {

namespace {

std::string joinRanks(const std::vector<int>& ranks)
{
    std::string text;
    const size_t shown = std::min<size_t>(ranks.size(), 8);
    for (size_t i = 0; i < shown; ++i) {
        text += (i ? "," : "") + std::to_string(ranks[i]);
    }
    if (ranks.size() > shown) {
        text += ",...," + std::to_string(ranks.back());
    }
    return text;
}

/// "network backend: analytical (...), congestion (...) or ideal (...)", from the backends the step model has.
std::string backendHelp()
{
    std::string text = "network backend: ";
    const std::vector<sim::NetworkBackend> backends = sim::networkBackends();
    for (size_t i = 0; i < backends.size(); ++i) {
        text += (i == 0                            ? ""
                        : i + 1 == backends.size() ? " or "
                                                   : ", ")
            + std::string(sim::toString(backends[i])) + " (" + sim::describe(backends[i]) + ")";
    }
    return text;
}

Arguments runArguments()
{
    return Arguments("run",
        "Loads a scenario (a workspace, or --model, --hardware and --run), checks it and places its "
        "ranks on the network. With no scenario it runs the default workspace "
        "llama-3.1-70b-64xh100.",
        scenarioOptions({ { "json", "FILE", "write the result as JSON (- for standard output)", false },
            { "backend", "NAME", backendHelp(), false },
            { "chakra-out", "DIR",
                "write the training step's (or the inference request's) execution graph as Chakra traces: "
                "rapid.<rank>.et for every rank and comm_groups.json",
                false },
            { "chakra-detail", "LEVEL",
                "compute nodes of the Chakra traces: chunk (default; one per pipeline pass), layer or operator",
                false },
            { "chakra-ranks", "LIST",
                "write only these ranks' traces, e.g. 0-7,64 (for clusters too large for every file; "
                "comm_groups.json stays complete and the ranks left out are listed)",
                false } }),
        "[WORKSPACE]");
}

/// The scenario as loaded: model, hardware with its network and faults, the run, and where its ranks sit.
void printScenario(std::ostream& out, const config::Scenario& scenario, const parallel::Placement& placement)
{
    const config::RunSpec& run = scenario.run;
    const config::HardwareSpec& hardware = scenario.hardware;
    out << "scenario   " << scenario.name << "\n";
    out << "model      " << scenario.model.name << "  ("
        << formatCount(static_cast<double>(model::countParameters(scenario.model).total())) << " parameters)\n";
    out << "hardware   " << hardware.name << ": " << hardware.cluster.totalGpus() << " x " << hardware.gpu.name;
    for (const config::NetworkDimension& dimension : hardware.cluster.dimensions) {
        out << "\n           " << dimension.name << ": " << config::toString(dimension.kind) << " of " << dimension.size
            << ", " << config::formatQuantity(dimension.linkBandwidth, config::Dimension::BytesPerSecond)
            << " per link, " << config::formatQuantity(dimension.latencySeconds, config::Dimension::Seconds)
            << " per hop";
    }
    out << "\n";
    if (!hardware.faults.empty()) {
        out << "faults     ";
        for (const config::LinkFault& fault : hardware.faults) {
            out << fault.describe() << " health " << fault.health << "  ";
        }
        out << "\n";
    }
    if (!hardware.stragglers.empty()) {
        out << "stragglers ";
        for (const config::GpuStraggler& straggler : hardware.stragglers) {
            out << "GPU " << straggler.gpu << " x" << straggler.slowdown << "  ";
        }
        out << "(the step waits for the slowest data-parallel replica)\n";
    }
    if (run.mode == config::RunMode::Training) {
        out << "run        training: global batch " << run.globalBatch << ", micro-batch " << run.microBatch
            << ", sequence " << run.seqLength << ", " << run.microBatchesPerStep()
            << " micro-batches per step, recompute " << config::toString(run.recompute) << "\n";
    } else {
        out << "run        inference: " << run.batch << " concurrent requests, prompt " << run.promptLength
            << ", decode " << run.decodeLength << " tokens\n";
    }
    out << "placement  (rank r runs on GPU r; GPUs are numbered innermost network dimension first)\n";
    out << "  axis  degree  stride  network dimensions   group of rank 0\n";
    for (const parallel::AxisPlacement& axis : placement.axes) {
        std::string dims;
        for (int d : axis.dimensions) {
            dims += (dims.empty() ? "" : "+") + hardware.cluster.dimensions[static_cast<size_t>(d)].name;
        }
        if (dims.empty()) {
            dims = axis.degree > 1 ? "-" : "(none)";
        }
        char line[160];
        std::snprintf(line, sizeof line, "  %-4s  %6d  %6d  %-19s  %s\n", parallel::toString(axis.axis), axis.degree,
            axis.stride, dims.c_str(), joinRanks(axis.firstGroup).c_str());
        out << line;
    }
    if (placement.shardDegree > 0 && placement.shardReplicaGroup(0).size() > 1) {
        // Hybrid sharding: the shard group and the shard's replicas are slices of the dp (x cp) ranks.
        out << "  dp_shard " << placement.shardDegree << ": rank 0 shards with "
            << joinRanks(placement.weightShardGroup(0)) << " and all-reduces its shard with "
            << joinRanks(placement.shardReplicaGroup(0)) << "\n";
    }
}

/// The memory verdict and the peak by category.
void printMemory(std::ostream& out, const memory::MemoryEstimate& memory, const config::RunSpec& run)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    char line[200];
    std::snprintf(line, sizeof line,
        "memory     %s: %.1f GiB of %.1f GiB per GPU at the peak (pipeline stage %d%s), %s %.1f GiB\n",
        memory.fits ? "fits" : "DOES NOT FIT", memory.peakBytes / gib, memory.capacityBytes / gib, memory.peakStage,
        run.mode == config::RunMode::Training ? (", " + std::to_string(memory.inFlightMicroBatches)
            + (run.parallelism.schedule == config::PipelineSchedule::Interleaved ? " micro-batch chunks in flight"
                                                                                 : " micro-batches in flight"))
                                                    .c_str()
                                              : "",
        memory.fits ? "margin" : "short by", std::abs(memory.marginBytes) / gib);
    out << line;
    for (int i = 0; i < memory::kMemoryCategoryCount; ++i) {
        const double bytes = memory.breakdown[static_cast<size_t>(i)];
        if (bytes > 0) {
            std::snprintf(line, sizeof line, "             %-22s %8.2f GiB\n",
                memory::toString(static_cast<memory::MemoryCategory>(i)), bytes / gib);
            out << line;
        }
    }
}

/// The training step: time, throughput, MFU, the breakdown of its busiest stage, and the busiest links when the
/// backend simulated the network.
void printTraining(std::ostream& out, const report::TrainingResult& r, const network::Topology* topology)
{
    char line[200];
    std::snprintf(line, sizeof line,
        "step       %.4g s  (%.4g tokens/s, %.1f TFLOP/s of model work per GPU, MFU %.1f%%)\n", r.stepTimeSeconds,
        r.tokensPerSecond, r.modelFlopsPerGpu / 1e12, 100 * r.mfu);
    out << line;
    if (!r.limitingStragglers.empty()) {
        out << "slowest    data-parallel replica with slow GPU(s) " << joinRanks(r.limitingStragglers)
            << ": its step is the step\n";
    }
    // With link faults every rank waits for its own group: name the groups that are slower than the healthy ones.
    for (size_t i = 0; i < r.faultLimitedGroups.size(); ++i) {
        const report::FaultLimitedGroup& group = r.faultLimitedGroups[i];
        std::snprintf(line, sizeof line, " takes %.4g us, %.2fx GPUs %s's\n", group.seconds * 1e6,
            group.seconds / group.representativeSeconds, joinRanks(group.representative).c_str());
        out << (i == 0 ? "faults     slowest " : "           slowest ") << group.collective << " on GPUs "
            << joinRanks(group.gpus) << line;
    }
    std::snprintf(line, sizeof line, "breakdown  (pipeline stage %d, exposed time)\n", r.breakdown.stage);
    out << line;
    for (int i = 0; i < graph::kTimeClassCount; ++i) {
        const double seconds = r.breakdown.parts[static_cast<size_t>(i)];
        if (seconds > 0) {
            std::snprintf(line, sizeof line, "             %-22s %10.4g s  %5.1f%%\n",
                graph::toString(static_cast<graph::TimeClass>(i)), seconds, 100 * seconds / r.stepTimeSeconds);
            out << line;
        }
    }
    std::snprintf(line, sizeof line, "             %-22s %10.4g s  %5.1f%%\n", "pipeline bubble",
        r.breakdown.bubbleSeconds, 100 * r.breakdown.bubbleSeconds / r.stepTimeSeconds);
    out << line;
    if (!r.linkUtilisation.empty() && topology) {
        // The busiest links of the step's simulated traffic (sends, reductions, gathers), averaged over the step.
        std::vector<int> order(r.linkUtilisation.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return r.linkUtilisation[static_cast<size_t>(a)] > r.linkUtilisation[static_cast<size_t>(b)];
        });
        out << "links      busiest over the step (bytes carried / bandwidth x step time)\n";
        for (size_t i = 0; i < std::min<size_t>(5, order.size()); ++i) {
            const double utilisation = r.linkUtilisation[static_cast<size_t>(order[i])];
            if (utilisation <= 0) {
                break;
            }
            const network::Link& link = topology->link(order[i]);
            std::snprintf(line, sizeof line, "             %-28s %-10s %6.2f%%\n", topology->linkId(order[i]).c_str(),
                link.from < link.to ? "a->b" : "b->a", 100 * utilisation);
            out << line;
        }
    }
}

void printInference(std::ostream& out, const report::InferenceResult& r)
{
    char line[200];
    std::snprintf(line, sizeof line,
        "latency    TTFT %.4g s, ITL %.4g ms (mean over the decode), end-to-end %.4g s, %.4g output "
        "tokens/s\n",
        r.ttftSeconds, 1e3 * r.itlSeconds, r.e2eSeconds, r.tokensPerSecond);
    out << line;
    if (!r.limitingStragglers.empty()) {
        out << "slowest    data-parallel replica with slow GPU(s) " << joinRanks(r.limitingStragglers)
            << ": its requests see this latency; the other replicas run at full speed\n";
    }
}

void printEnergy(std::ostream& out, const report::EnergyEstimate& energy, bool training)
{
    char line[200];
    if (energy.known()) {
        std::snprintf(line, sizeof line, "energy     %.4g kJ %s, %.0f W per GPU on average, %.4g J per %s token\n",
            energy.joules / 1e3, training ? "per step" : "for the request batch", energy.averageWattsPerGpu,
            energy.joulesPerToken, training ? "trained" : "output");
        out << line;
    } else {
        out << "energy     unknown (the GPU preset gives no power figures)\n";
    }
}

sim::ChakraDetail chakraDetail(const std::string& level)
{
    if (level == "chunk") {
        return sim::ChakraDetail::Chunk;
    }
    if (level == "layer") {
        return sim::ChakraDetail::Layer;
    }
    if (level == "operator") {
        return sim::ChakraDetail::Operator;
    }
    throw UsageError("--chakra-detail \"" + level + "\": expected chunk, layer or operator");
}

} // namespace

int runCommand(const Invocation& invocation)
{
    Arguments arguments = runArguments();
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    // Option values are checked before any work, so a typo does not come after a page of output.
    const std::string backendName = arguments.value("backend").value_or("analytical");
    const std::optional<sim::NetworkBackend> backend = sim::parseNetworkBackend(backendName);
    if (!backend) {
        throw UsageError("--backend \"" + backendName + "\": expected " + sim::networkBackendChoices());
    }
    const sim::ChakraDetail detail = chakraDetail(arguments.value("chakra-detail").value_or("chunk"));
    std::vector<int> chakraRanks;
    if (auto list = arguments.value("chakra-ranks")) {
        if (!arguments.value("chakra-out")) {
            throw UsageError("--chakra-ranks chooses the ranks --chakra-out writes: give --chakra-out DIR too");
        }
        chakraRanks = parseRankList(*list, "chakra-ranks");
        std::sort(chakraRanks.begin(), chakraRanks.end());
        chakraRanks.erase(std::unique(chakraRanks.begin(), chakraRanks.end()), chakraRanks.end());
    }
    const config::Scenario scenario = loadScenario(arguments, loader);
    std::vector<config::Diagnostic> problems;
    const parallel::Placement placement
        = parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, &problems);
    if (!problems.empty()) {
        throw config::ConfigError(problems);
    }

    std::ostream& out = invocation.out;
    printScenario(out, scenario, placement);
    const memory::MemoryEstimate memory = memory::estimateMemory(scenario.model, scenario.hardware.gpu, scenario.run);
    printMemory(out, memory, scenario.run);
    out << "network    " << backendName << " backend\n";
    if (*backend == sim::NetworkBackend::Analytical) {
        noteUnchargedDetours(out, scenario.hardware, "note       ");
    }
    if (auto directory = arguments.value("chakra-out")) {
        if (!chakraRanks.empty() && chakraRanks.back() >= placement.ranks) {
            invocation.err << "rapid run: --chakra-ranks: rank " << chakraRanks.back()
                           << " is outside the job's ranks 0.." << placement.ranks - 1 << "\n";
            return InputError;
        }
        sim::ChakraExportSummary summary;
        try {
            summary = analysis::exportStepTraces(scenario, *directory, detail, nullptr, {}, *backend, chakraRanks);
        } catch (const std::filesystem::filesystem_error& error) {
            // A place that cannot hold the traces is the user's input, not an internal error.
            invocation.err << "rapid run: --chakra-out " << *directory << ": cannot write the traces there ("
                           << error.code().message() << ")\n";
            return InputError;
        }
        out << "chakra     wrote " << summary.files << " trace file(s) (" << summary.nodes << " nodes) "
            << (summary.groups == 0 ? std::string()
                                    : "and comm_groups.json (" + std::to_string(summary.groups) + " groups) ")
            << "to " << *directory << " in " << static_cast<long long>(summary.seconds * 1000 + 0.5) << " ms\n";
        if (summary.files < summary.ranks) {
            std::vector<int> left;
            for (int rank = 0, next = 0; rank < summary.ranks; ++rank) {
                if (next < static_cast<int>(chakraRanks.size()) && chakraRanks[static_cast<size_t>(next)] == rank) {
                    ++next;
                } else {
                    left.push_back(rank);
                }
            }
            out << "chakra     ranks not written (--chakra-ranks): " << rankRanges(left) << "\n";
        }
    }
    analysis::EvaluationOptions options;
    options.backend = *backend;
    options.timeline = false;
    const analysis::ScenarioEvaluation evaluation = analysis::evaluateScenario(scenario, options);
    if (evaluation.training) {
        printTraining(out, *evaluation.training, evaluation.backend->topology());
    } else {
        printInference(out, *evaluation.inference);
    }
    printEnergy(out, evaluation.training ? evaluation.training->energy : evaluation.inference->energy,
        evaluation.training.has_value());

    if (auto jsonPath = arguments.value("json")) {
        std::ofstream file;
        std::ostream* json = openOutput(*jsonPath, file, invocation);
        if (!json) {
            invocation.err << "rapid run: cannot write " << *jsonPath << "\n";
            return InputError;
        }
        report::writeJson(*json, analysis::runResultJson(scenario, evaluation, memory));
    }
    return Success;
}

int presetsCommand(const Invocation& invocation)
{
    Arguments arguments("presets", "Lists the presets found in the configs folders.", {});
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::PresetLibrary library = config::PresetLibrary::standard();
    for (const std::string& dir : library.configDirs()) {
        invocation.out << "configs: " << dir << "\n";
    }
    for (config::PresetKind kind : { config::PresetKind::Model, config::PresetKind::Gpu, config::PresetKind::Hardware,
             config::PresetKind::Run, config::PresetKind::Workspace }) {
        invocation.out << config::folderOf(kind) << ":";
        for (const std::string& name : library.names(kind)) {
            invocation.out << " " << name;
        }
        invocation.out << "\n";
    }
    return Success;
}

} // namespace rapid::cli

// SPDX-License-Identifier: GPL-3.0-or-later
#include "faultstudy.h"

#include "goodputsimulation.h"
#include "quantile.h"

#include "graph/parallelfor.h"
#include "network/router.h"
#include "sim/flowsimulator.h"
#include "sim/stepmodel.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>

namespace rapid::resilience {

namespace {

std::vector<const LinkClass*> chosenClasses(const std::vector<LinkClass>& all, const std::vector<std::string>& names)
{
    std::vector<const LinkClass*> chosen;
    for (const std::string& name : names) {
        const auto found = std::find_if(all.begin(), all.end(), [&](const LinkClass& c) { return c.name == name; });
        if (found == all.end()) {
            std::string known;
            for (const LinkClass& c : all) {
                known += (known.empty() ? "" : ", ") + ("\"" + c.name + "\"");
            }
            throw std::invalid_argument("no link class \"" + name + "\"; the network has " + known);
        }
        chosen.push_back(&*found);
    }
    if (names.empty()) {
        for (const LinkClass& c : all) {
            if (!c.optIn) {
                chosen.push_back(&c);
            }
        }
    }
    return chosen;
}

void checkHealth(double health)
{
    if (!std::isfinite(health) || health < 0 || health >= 1) {
        throw std::invalid_argument("the health of a faulty link must be from 0 (failed) to below 1");
    }
}

config::Scenario withFaults(const config::Scenario& scenario, const std::vector<std::string>& links, double health)
{
    config::Scenario faulty = scenario;
    for (const std::string& link : links) {
        faulty.hardware.faults.push_back({ link, health });
    }
    return faulty;
}

/// "node 3 NICs": a node NIC unit named after the node of its first link's GPU.
std::string unitName(const network::Topology& topology, const LinkClass& linkClass, const std::string& firstLink)
{
    const network::Link& link = topology.link(topology.findLink(firstLink));
    const int gpu = topology.node(link.from).isSwitch ? link.to : link.from;
    const int perNode = std::max(1, topology.cluster().gpusPerNode);
    const std::string dimension = linkClass.name.substr(0, linkClass.name.find(' '));
    return dimension + " NICs of node " + std::to_string(gpu / perNode);
}

} // namespace

double stepSeconds(const config::Scenario& scenario, sim::NetworkBackend backend)
{
    try {
        sim::StepModel model(scenario, backend);
        return model.training(false).stepTimeSeconds;
    } catch (const network::UnreachableError&) {
        return 0;
    }
}

std::vector<FaultUnit> faultPool(const network::Topology& topology, const FaultStudySpec& spec)
{
    if (spec.slowGpus > 0) {
        if (spec.slowGpus > topology.gpuCount()) {
            throw std::invalid_argument(std::to_string(spec.slowGpus) + " slow GPUs per trial, but the cluster has "
                + std::to_string(topology.gpuCount()));
        }
        if (!std::isfinite(spec.slowdown) || spec.slowdown < 1 || spec.slowdown > 1000) {
            throw std::invalid_argument("a slow GPU's slowdown must be from 1 to 1000");
        }
        return {};
    }
    if (spec.faultyLinks < 1) {
        throw std::invalid_argument("at least one faulty link per trial");
    }
    checkHealth(spec.health);
    std::vector<FaultUnit> pool;
    const std::vector<LinkClass> classes = linkClasses(topology);
    for (const LinkClass* chosen : chosenClasses(classes, spec.classes)) {
        for (std::size_t i = 0; i < chosen->unitCount(); ++i) {
            pool.push_back(chosen->unit(i));
        }
    }
    std::sort(pool.begin(), pool.end());
    pool.erase(std::unique(pool.begin(), pool.end()), pool.end());
    if (classes.empty()) {
        throw std::invalid_argument("the hardware has no links to fail (one GPU, no network)");
    }
    if (static_cast<int>(pool.size()) < spec.faultyLinks) {
        throw std::invalid_argument(std::to_string(spec.faultyLinks) + " faulty links (or NIC sets) per trial, but the "
            + "classes hold " + std::to_string(pool.size()));
    }
    return pool;
}

std::vector<std::string> drawFaultLinks(
    const FaultStudySpec& spec, const network::Topology& topology, const std::vector<FaultUnit>& pool, int index)
{
    // A partial Fisher-Yates shuffle of the pool's indices.
    std::mt19937_64 random(mixSeed(spec.seed, static_cast<std::uint64_t>(index)));
    std::vector<std::size_t> order(pool.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::vector<std::string> ids;
    for (int i = 0; i < spec.faultyLinks; ++i) {
        std::uniform_int_distribution<std::size_t> pick(static_cast<std::size_t>(i), order.size() - 1);
        std::swap(order[static_cast<std::size_t>(i)], order[pick(random)]);
        for (const int physical : pool[order[static_cast<std::size_t>(i)]]) {
            ids.push_back(topology.linkId(2 * physical));
        }
    }
    return ids;
}

std::vector<int> drawSlowGpus(const FaultStudySpec& spec, int gpus, int index)
{
    std::mt19937_64 random(mixSeed(spec.seed, static_cast<std::uint64_t>(index)));
    std::vector<int> all(static_cast<std::size_t>(gpus));
    for (int gpu = 0; gpu < gpus; ++gpu) {
        all[static_cast<std::size_t>(gpu)] = gpu;
    }
    for (int i = 0; i < spec.slowGpus; ++i) {
        std::uniform_int_distribution<std::size_t> pick(static_cast<std::size_t>(i), all.size() - 1);
        std::swap(all[static_cast<std::size_t>(i)], all[pick(random)]);
    }
    all.resize(static_cast<std::size_t>(spec.slowGpus));
    std::sort(all.begin(), all.end());
    return all;
}

FaultTrial runFaultTrial(const config::Scenario& scenario, const FaultStudySpec& spec,
    const network::Topology& topology, const std::vector<FaultUnit>& pool, int index)
{
    FaultTrial trial;
    if (spec.slowGpus > 0) {
        trial.slowGpus = drawSlowGpus(spec, topology.gpuCount(), index);
        config::Scenario slow = scenario;
        for (const int gpu : trial.slowGpus) {
            slow.hardware.stragglers.push_back({ gpu, spec.slowdown });
        }
        trial.stepSeconds = stepSeconds(slow, spec.backend);
        trial.disconnected = trial.stepSeconds == 0;
        return trial;
    }
    trial.links = drawFaultLinks(spec, topology, pool, index);
    trial.stepSeconds = stepSeconds(withFaults(scenario, trial.links, spec.health), spec.backend);
    trial.disconnected = trial.stepSeconds == 0;
    return trial;
}

void summariseFaultStudy(FaultStudyResult& result)
{
    std::vector<double> slowdowns;
    result.disconnected = 0;
    for (const FaultTrial& trial : result.trials) {
        if (trial.disconnected) {
            ++result.disconnected;
        } else {
            slowdowns.push_back(trial.stepSeconds / result.baselineSeconds);
        }
    }
    if (slowdowns.empty()) {
        return;
    }
    double sum = 0;
    for (const double slowdown : slowdowns) {
        sum += slowdown;
    }
    result.meanSlowdown = sum / static_cast<double>(slowdowns.size());
    result.p50Slowdown = quantile(slowdowns, 0.5);
    result.p90Slowdown = quantile(slowdowns, 0.9);
    result.p99Slowdown = quantile(slowdowns, 0.99);
    result.maxSlowdown = *std::max_element(slowdowns.begin(), slowdowns.end());
}

FaultStudyResult runFaultStudy(const config::Scenario& scenario, const FaultStudySpec& spec, unsigned threads,
    const std::function<void(int)>& progress, const std::atomic<bool>* stop)
{
    if (spec.trials < 1) {
        throw std::invalid_argument("at least one trial");
    }
    const network::Topology topology(scenario.hardware);
    const std::vector<FaultUnit> pool = faultPool(topology, spec);
    FaultStudyResult result;
    result.baselineSeconds = stepSeconds(scenario, spec.backend);
    if (result.baselineSeconds == 0) {
        throw std::invalid_argument("hardware.faults: the scenario's own faults cut GPUs apart");
    }
    std::vector<FaultTrial> trials(static_cast<std::size_t>(spec.trials));
    std::vector<char> done(trials.size(), 0);
    std::atomic<int> finished { 0 };
    graph::parallelFor(trials.size(), threads, [&](std::size_t index) {
        if (stop && stop->load()) {
            return;
        }
        trials[index] = runFaultTrial(scenario, spec, topology, pool, static_cast<int>(index));
        done[index] = 1;
        const int count = ++finished;
        if (progress) {
            progress(count);
        }
    });
    for (std::size_t i = 0; i < trials.size(); ++i) {
        if (done[i]) {
            result.trials.push_back(std::move(trials[i]));
        }
    }
    summariseFaultStudy(result);
    return result;
}

std::vector<LinkCriticality> linkCriticality(const config::Scenario& scenario, double health,
    sim::NetworkBackend backend, const std::vector<std::string>& classes, int maxLinks, unsigned threads,
    const std::function<void(int)>& progress, const std::atomic<bool>* stop)
{
    checkHealth(health);
    if (maxLinks < 1) {
        throw std::invalid_argument("at least one link to rank");
    }
    const network::Topology topology(scenario.hardware);
    const std::vector<LinkClass> all = linkClasses(topology);
    const std::vector<const LinkClass*> chosen = chosenClasses(all, classes);
    std::size_t total = 0;
    for (const LinkClass* c : chosen) {
        total += c->unitCount();
    }
    std::vector<LinkCriticality> ranked;
    for (const LinkClass* c : chosen) {
        // Evenly spaced units of the class when there are too many to time each: a class keeps its share.
        const std::size_t count = c->unitCount();
        const std::size_t keep = total <= static_cast<std::size_t>(maxLinks)
            ? count
            : std::max<std::size_t>(1, count * static_cast<std::size_t>(maxLinks) / total);
        for (std::size_t i = 0; i < keep; ++i) {
            LinkCriticality entry { {}, c->name, 1, false, {} };
            for (const int physical : c->unit(i * count / keep)) {
                entry.links.push_back(topology.linkId(2 * physical));
            }
            entry.linkId = entry.links.size() == 1 ? entry.links.front() : unitName(topology, *c, entry.links.front());
            ranked.push_back(std::move(entry));
        }
    }
    const double baseline = stepSeconds(scenario, backend);
    if (baseline == 0) {
        throw std::invalid_argument("hardware.faults: the scenario's own faults cut GPUs apart");
    }
    std::atomic<int> finished { 0 };
    graph::parallelFor(ranked.size(), threads, [&](std::size_t index) {
        if (stop && stop->load()) {
            return;
        }
        LinkCriticality& link = ranked[index];
        const double seconds = stepSeconds(withFaults(scenario, link.links, health), backend);
        link.disconnects = seconds == 0;
        link.slowdown = seconds == 0 ? 0 : seconds / baseline;
        const int count = ++finished;
        if (progress) {
            progress(count);
        }
    });
    if (stop && stop->load()) {
        throw sim::SimulationCancelled();
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const LinkCriticality& a, const LinkCriticality& b) {
        if (a.disconnects != b.disconnects) {
            return a.disconnects;
        }
        return a.slowdown > b.slowdown;
    });
    return ranked;
}

} // namespace rapid::resilience

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "linkclasses.h"

#include "config/configloader.h"
#include "sim/stepbackend.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rapid::resilience {

/// A Monte Carlo fault study: each trial degrades k links drawn at random from the chosen classes to health h (0:
/// failed, rerouted around) on top of the scenario's own faults, and times the training step. With slowGpus > 0 it
/// is a straggler study instead: each trial makes that many distinct GPUs, drawn from all, `slowdown` times slower.
struct FaultStudySpec {
    int faultyLinks = 1; ///< k, distinct links (units: a node's NICs in a node NIC class) per trial
    double health = 0.5; ///< h: 0 fails the links, (0, 1) degrades them
    std::vector<std::string> classes; ///< LinkClass names to draw from; empty: every class but the opt-in ones
    int slowGpus = 0; ///< straggler study: slow GPUs per trial (0: a link study)
    double slowdown = 1.5; ///< straggler study: each slow GPU's kernels take this many times as long (>= 1)
    int trials = 100;
    std::uint64_t seed = 1;
    sim::NetworkBackend backend = sim::NetworkBackend::Congestion;
};

/// One trial: the links it degraded (or the GPUs it slowed) and the step it gave.
struct FaultTrial {
    std::vector<std::string> links; ///< link ids (link study)
    std::vector<int> slowGpus; ///< GPU indices, ascending (straggler study)
    double stepSeconds = 0; ///< 0 when the faults cut GPUs apart
    bool disconnected = false;
};

/// The drawn trials and what they did to the step.
struct FaultStudyResult {
    double baselineSeconds = 0; ///< the scenario's step with its own faults only
    std::vector<FaultTrial> trials; ///< in trial order
    int disconnected = 0; ///< trials whose faults cut GPUs apart (not in the slowdown statistics)
    /// Slowdown (step / baseline) over the connected trials.
    double meanSlowdown = 0;
    double p50Slowdown = 0;
    double p90Slowdown = 0;
    double p99Slowdown = 0;
    double maxSlowdown = 0;
};

/// The fault pool of @p spec on @p topology: the units (links, or a node's NICs) of its classes (none for a straggler
/// study). Throws std::invalid_argument naming an unknown class (and the known ones), when the pool has fewer than k
/// links, or for more slow GPUs than the cluster has or a slowdown below 1.
std::vector<FaultUnit> faultPool(const network::Topology& topology, const FaultStudySpec& spec);

/// The links trial @p index of @p spec degrades: the links of k distinct units of @p pool, from the trial's own seed.
std::vector<std::string> drawFaultLinks(
    const FaultStudySpec& spec, const network::Topology& topology, const std::vector<FaultUnit>& pool, int index);

/// The GPUs trial @p index of a straggler study slows: spec.slowGpus distinct GPUs of @p gpus, ascending.
std::vector<int> drawSlowGpus(const FaultStudySpec& spec, int gpus, int index);

/// Trial @p index of @p spec alone: its draw depends on the seed and the index only, so any process computing it gets
/// the same links and the same step (the MPI split relies on it).
FaultTrial runFaultTrial(const config::Scenario& scenario, const FaultStudySpec& spec,
    const network::Topology& topology, const std::vector<FaultUnit>& pool, int index);

/// Fills the statistics of @p result from its trials.
void summariseFaultStudy(FaultStudyResult& result);

/// Every trial of @p spec on @p threads threads (0: one per core). @p progress gets the trials done so far (on any
/// thread); @p stop, when set, ends the study early (the trials done so far are summarised; trials not run are
/// absent).
FaultStudyResult runFaultStudy(const config::Scenario& scenario, const FaultStudySpec& spec, unsigned threads = 0,
    const std::function<void(int)>& progress = {}, const std::atomic<bool>* stop = nullptr);

/// The step time of @p scenario on @p backend (its own faults), or 0 when they cut GPUs apart.
double stepSeconds(const config::Scenario& scenario, sim::NetworkBackend backend);

/// How much one link alone slows the step.
struct LinkCriticality {
    std::string linkId; ///< the link, or for a unit of several links its name ("ib NICs of node 3")
    std::string linkClass;
    double slowdown = 1; ///< step with the link at the study's health / the baseline
    bool disconnects = false; ///< failing it cuts GPUs apart
    std::vector<std::string> links; ///< the links degraded together (one for a link class)
};

/// The criticality map: every link of the chosen classes (all classes when empty) set alone to @p health, ranked by
/// the slowdown it causes (disconnecting links first). With more than @p maxLinks links, each class is sampled
/// evenly (deterministically) to at most its share of @p maxLinks. @p progress gets the links timed so far (on any
/// thread); @p stop, when set, ends the ranking early with sim::SimulationCancelled (a partial map would rank the
/// untimed links as harmless).
std::vector<LinkCriticality> linkCriticality(const config::Scenario& scenario, double health,
    sim::NetworkBackend backend, const std::vector<std::string>& classes, int maxLinks, unsigned threads = 0,
    const std::function<void(int)>& progress = {}, const std::atomic<bool>* stop = nullptr);

} // namespace rapid::resilience

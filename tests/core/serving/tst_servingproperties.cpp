// SPDX-License-Identifier: GPL-3.0-or-later
// Physical and scheduling invariants of `rapid serve` over thousands of random valid set-ups: every model preset on
// every one-node hardware and GPU preset, random tensor/pipeline splits and replicas, precisions (fp8 weights and KV
// cache), engine profiles and their knobs (token budget, sequence cap, block size, chunked prefill, prefix caching),
// closed loops and Poisson arrivals, prompt and output lengths, shared prefixes, preemption by swapping; and
// disaggregated deployments (prefill and decode pools of their own tensor parallelism and size on one server). Each
// draw is checked against bounds derived independently of the engine:
// - a decode step streams at least the weights one token uses (the active non-embedding parameters) from HBM, so no
//   request's inter-token latency is below active weight bytes / (tp x HBM bandwidth), over k + 1 when speculative
//   decoding verifies k drafts a step (a step then yields at most k + 1 tokens);
// - a prefill computes at least 2 FLOPs per active parameter and prompt token it does not take from the prefix cache,
//   so no TTFT is below that over (tp x pp x the tensor peak of the compute precision);
// - a request's first token comes after its arrival and its last after its first;
// - no iteration holds more KV blocks than the cache has, more sequences than max_num_seqs, or more tokens than the
//   token budget allows (vLLM and TensorRT-LLM count decodes in it; SGLang's prefill and decode batches run apart);
// - a closed loop never holds more requests than its clients, so the requests' latencies add up to at most clients x
//   makespan;
// - the summary's percentiles are ordered, shares lie in [0, 1], goodput is at most the request rate, all finite.
// A violation is a bug in the engine or the operator model, never something to clamp. The draw is seeded: a failure
// names a set-up that reproduces.
#include "config/diagnostic.h"
#include "model/modelstats.h"
#include "randomdraw.h"
#include "serving/disaggregation.h"
#include "serving/servingsimulator.h"
#include "testutils.h"

#include <QTest>

#include <cmath>
#include <map>
#include <random>
#include <sstream>

#ifndef RAPID_SERVING_PROPERTY_CASES
#define RAPID_SERVING_PROPERTY_CASES 2000
#endif

using namespace rapid;
using test::divisorsOf;
using test::pick;
using namespace rapid::serving;

namespace {

constexpr double kRounding = 1e-9;

struct Draw {
    std::string model;
    std::string hardware;
    std::vector<std::string> overrides;
    /// Disaggregated draws: the decode pool's parallelism (overrides are the prefill pool's) and the pools' sizes.
    std::vector<std::string> decodeOverrides;
    int prefillWorkers = 0; ///< 0: aggregated serving
    int decodeWorkers = 0;
    WorkloadSpec workload;
    EngineOptions options;

    std::string describe() const
    {
        std::ostringstream text;
        text << "model " << model << ", hardware " << hardware;
        for (const std::string& assignment : overrides) {
            text << ", --set " << assignment;
        }
        if (prefillWorkers > 0) {
            text << "; " << prefillWorkers << " prefill and " << decodeWorkers << " decode workers, decode";
            for (const std::string& assignment : decodeOverrides) {
                text << " --set " << assignment;
            }
        }
        text << "; engine " << toString(options.profile) << " " << toString(options.capacityPolicy) << " "
             << toString(options.batching) << " seqs " << options.maxNumSeqs << " tokens "
             << options.maxNumBatchedTokens << " block " << options.blockSize << " chunked " << options.chunkedPrefill
             << " prefix-cache " << options.prefixCaching << " drafts " << options.speculative.draftTokens
             << " acceptance " << options.speculative.acceptance << " " << toString(options.speculative.method)
             << " layers " << options.speculative.draftLayers << " preemption " << toString(options.preemption)
             << " swap space " << options.swapSpaceBytes << " B; "
             << (workload.arrival == ArrivalKind::ClosedLoop ? "clients " + std::to_string(workload.concurrency)
                                                             : "rate " + std::to_string(workload.ratePerSecond))
             << ", " << workload.requests << " requests of " << workload.promptTokens << " + " << workload.outputTokens
             << " tokens, shared prefix " << workload.sharedPrefixTokens << ", prompt pool " << workload.promptPool
             << " (prompt spread " << workload.promptTokensStddev << ")";
        return text.str();
    }
};

class SetUpDrawer {
public:
    explicit SetUpDrawer(const config::ConfigLoader& loader)
    {
        const config::PresetLibrary& library = loader.library();
        for (const std::string& name : library.names(config::PresetKind::Model)) {
            m_models.emplace(name, loader.loadModel(name));
            m_modelNames.push_back(name);
        }
        for (config::PresetKind kind : { config::PresetKind::Hardware, config::PresetKind::Gpu }) {
            for (const std::string& name : library.names(kind)) {
                const config::HardwareSpec hardware = loader.loadHardware(name);
                if (hardware.cluster.totalGpus() <= 8) { // one server: the replicas of a cluster are alike
                    m_hardware.emplace(name, hardware);
                    m_hardwareNames.push_back(name);
                }
            }
        }
    }

    Draw draw(std::mt19937& random) const
    {
        Draw result;
        result.model = pick(random, m_modelNames);
        result.hardware = pick(random, m_hardwareNames);
        const config::ModelSpec& model = m_models.at(result.model);
        const config::HardwareSpec& hardware = m_hardware.at(result.hardware);
        const int gpus = hardware.cluster.totalGpus();
        const int tp = pick(random, divisorsOf(gpus, 8));
        const int pp = pick(random, divisorsOf(gpus / tp, std::min(4, model.numLayers)));
        const int dp = gpus / tp / pp;
        const bool fp8
            = hardware.gpu.tensorPeak(config::Precision::Fp8) > 0 && std::bernoulli_distribution(0.4)(random);
        const std::string stored = fp8 && std::bernoulli_distribution(0.5)(random) ? "fp8" : "bf16";
        result.overrides = { "run.parallelism.tp=" + std::to_string(tp), "run.parallelism.pp=" + std::to_string(pp),
            "run.parallelism.dp=" + std::to_string(dp), std::string("run.precision.compute=") + (fp8 ? "fp8" : "bf16"),
            "run.precision.weights=" + stored,
            "run.precision.kv_cache=" + pick(random, std::vector<std::string> { stored, std::string("bf16") }) };

        WorkloadSpec& workload = result.workload;
        workload.arrival = std::bernoulli_distribution(0.7)(random) ? ArrivalKind::ClosedLoop : ArrivalKind::Poisson;
        workload.concurrency = dp * pick(random, std::vector<int> { 1, 2, 4, 16, 64 });
        workload.ratePerSecond = dp * std::uniform_real_distribution<double>(0.5, 50)(random);
        workload.seed = random();
        workload.requests = dp * std::uniform_int_distribution<int>(4, 48)(random);
        workload.promptTokens = std::min<std::int64_t>(
            pick(random, std::vector<std::int64_t> { 16, 200, 1000, 2048, 8192 }), model.maxContext / 2);
        workload.outputTokens = pick(random, std::vector<std::int64_t> { 1, 2, 16, 128, 512 });
        workload.sharedPrefixTokens = std::bernoulli_distribution(0.3)(random) ? workload.promptTokens / 2 : 0;
        // Or a pool of distinct prompts sent again (a benchmark's dataset entries), with spread lengths at times:
        // drawn from a stream of the draw's own seed, so the draws of the other set-ups stay what they were.
        std::mt19937 poolRandom(static_cast<std::uint32_t>(workload.seed));
        if (workload.sharedPrefixTokens == 0 && std::bernoulli_distribution(0.3)(poolRandom)) {
            workload.promptPool = pick(poolRandom, std::vector<int> { 1, 3, 100 });
            workload.promptTokensStddev
                = std::bernoulli_distribution(0.5)(poolRandom) ? workload.promptTokens / 4.0 : 0;
        }
        workload.warmupRequests = 0;

        EngineOptions& options = result.options;
        options.profile = pick(
            random, std::vector<EngineProfile> { EngineProfile::Vllm, EngineProfile::TrtLlm, EngineProfile::Sglang });
        options.maxNumSeqs = pick(random, std::vector<int> { 0, 4, 64 });
        options.maxNumBatchedTokens = pick(random, std::vector<int> { 0, 512, 2048, 8192 });
        options.blockSize = pick(random, std::vector<int> { 0, 1, 16, 32 }); // 0: the engine's own
        options.maxPrefillTokens = pick(random, std::vector<int> { 0, 300, 4096 }); // SGLang's; others ignore it
        options.chunkedPrefill = std::bernoulli_distribution(0.8)(random);
        options.prefixCaching = std::bernoulli_distribution(0.5)(random);
        options.capacityPolicy = pick(random,
            std::vector<CapacityPolicy> { CapacityPolicy::Auto, CapacityPolicy::MaxUtilization,
                CapacityPolicy::GuaranteedNoEvict, CapacityPolicy::NewTokenRatio });
        options.batching
            = pick(random, std::vector<Batching> { Batching::Auto, Batching::Mixed, Batching::PrefillFirst });
        // vLLM V0's preemption by swapping, where an engine does it: vLLM with mixed batches.
        if (options.profile == EngineProfile::Vllm && options.batching != Batching::PrefillFirst
            && std::bernoulli_distribution(0.4)(random)) {
            options.preemption = Preemption::Swap;
            options.swapSpaceBytes = pick(random, std::vector<double> { 4.0, 64.0 }) * 1024 * 1024 * 1024;
        }
        if (std::bernoulli_distribution(0.3)(random)) {
            options.speculative.draftTokens = pick(random, std::vector<int> { 1, 3, 5 });
            options.speculative.acceptance = pick(random, std::vector<double> { 0, 0.5, 0.9, 1 });
            options.speculative.method
                = pick(random, std::vector<DraftMethod> { DraftMethod::Head, DraftMethod::Ngram });
            options.speculative.draftLayers = pick(random, std::vector<int> { 1, 2 });
        }
        if (dp == 1 && workload.sharedPrefixTokens > 0 && std::bernoulli_distribution(0.5)(random)) {
            drawPrefixGroups(random, result);
        }
        return result;
    }

    /// Makes @p draw's requests a trace whose shared prefixes come in several groups, often with a cache of one to
    /// three requests' blocks: the prefix cache then holds several prefixes and must give the least recently used back
    /// when blocks run short (it once kept them for ever and stopped with "an iteration with nothing to compute").
    static void drawPrefixGroups(std::mt19937& random, Draw& draw)
    {
        WorkloadSpec& workload = draw.workload;
        workload.arrival = ArrivalKind::Poisson;
        workload.trace = serving::workloadRequests(workload);
        workload.arrival = ArrivalKind::Trace;
        const int groups = pick(random, std::vector<int> { 2, 8, 64 });
        for (serving::RequestSpec& request : workload.trace) {
            request.prefixId = std::uniform_int_distribution<int>(0, groups - 1)(random);
        }
        if (std::bernoulli_distribution(0.5)(random)) {
            EngineOptions& options = draw.options;
            options.blockSize = options.blockSize == 0 ? 16 : options.blockSize;
            const std::int64_t perRequest
                = (workload.promptTokens + workload.outputTokens + options.blockSize - 1) / options.blockSize;
            options.kvBlocks = perRequest * std::uniform_int_distribution<int>(1, 3)(random);
        }
    }

    /// An aggregated draw on a server of two or more GPUs, made disaggregated: prefill and decode pools of their own
    /// tensor parallelism, each pool's scenario spanning the server as replicas (simulateDisaggregated's convention).
    Draw drawDisaggregated(std::mt19937& random) const
    {
        Draw result;
        do {
            result = draw(random);
        } while (m_hardware.at(result.hardware).cluster.totalGpus() < 2);
        const int gpus = m_hardware.at(result.hardware).cluster.totalGpus();
        const int prefillTp = pick(random, divisorsOf(gpus / 2, 4));
        const int decodeTp = pick(random, divisorsOf(gpus / 2, 4));
        result.prefillWorkers = std::uniform_int_distribution<int>(1, gpus / 2 / prefillTp)(random);
        result.decodeWorkers = std::uniform_int_distribution<int>(1, gpus / 2 / decodeTp)(random);
        auto pool = [&result, gpus](int tp) {
            std::vector<std::string> overrides = result.overrides;
            overrides[0] = "run.parallelism.tp=" + std::to_string(tp);
            overrides[1] = "run.parallelism.pp=1";
            overrides[2] = "run.parallelism.dp=" + std::to_string(gpus / tp);
            return overrides;
        };
        result.decodeOverrides = pool(decodeTp);
        result.overrides = pool(prefillTp);
        result.workload.concurrency = std::max(1, result.workload.concurrency / (gpus / 2));
        result.workload.ratePerSecond /= gpus / 2.0;
        result.workload.requests = std::max(4, result.workload.requests / (gpus / 2));
        return result;
    }

private:
    std::map<std::string, config::ModelSpec> m_models;
    std::map<std::string, config::HardwareSpec> m_hardware;
    std::vector<std::string> m_modelNames;
    std::vector<std::string> m_hardwareNames;
};

/// The parameters one token uses in the transformer layers (its experts only, for an MoE layer): a lower bound on the
/// weights every forward step reads (the embedding row, the final norm and the LM head come on top).
double activeLayerParameters(const config::ModelSpec& model)
{
    const model::ParameterCounts counts = model::countParameters(model);
    return static_cast<double>(counts.denseLayers) * static_cast<double>(counts.denseLayer.active())
        + static_cast<double>(counts.moeLayers) * static_cast<double>(counts.moeLayer.active());
}

QString ordered(const char* name, const LatencyStats& stats)
{
    const double values[] = { stats.mean, stats.p50, stats.p90, stats.p99, stats.max };
    for (double value : values) {
        if (!(value >= 0) || !std::isfinite(value)) {
            return QStringLiteral("%1 has a value %2").arg(QLatin1String(name)).arg(value);
        }
    }
    if (stats.p50 > stats.p90 * (1 + kRounding) || stats.p90 > stats.p99 * (1 + kRounding)
        || stats.p99 > stats.max * (1 + kRounding) || stats.mean > stats.max * (1 + kRounding)) {
        return QStringLiteral("%1 percentiles out of order: mean %2, p50 %3, p90 %4, p99 %5, max %6")
            .arg(QLatin1String(name))
            .arg(stats.mean)
            .arg(stats.p50)
            .arg(stats.p90)
            .arg(stats.p99)
            .arg(stats.max);
    }
    return {};
}

QString summaryViolation(const ServingSummary& summary)
{
    for (const auto& [name, stats] : { std::pair { "TTFT", summary.ttft }, std::pair { "ITL", summary.itl },
             std::pair { "end to end", summary.e2e } }) {
        if (const QString problem = ordered(name, stats); !problem.isEmpty()) {
            return problem;
        }
    }
    for (const auto& [name, share] : { std::pair { "SLO attainment", summary.sloAttainment },
             std::pair { "peak KV occupancy", summary.peakKvOccupancy },
             std::pair { "prefix-cache hit rate", summary.prefixCacheHitRate } }) {
        if (!(share >= 0) || share > 1 + kRounding) {
            return QStringLiteral("%1 is %2").arg(QLatin1String(name)).arg(share);
        }
    }
    if (!(summary.requestsPerSecond > 0) || !std::isfinite(summary.outputTokensPerSecond)
        || summary.goodputRequestsPerSecond > summary.requestsPerSecond * (1 + kRounding)) {
        return QStringLiteral("%1 requests/s, goodput %2, %3 tokens/s")
            .arg(summary.requestsPerSecond)
            .arg(summary.goodputRequestsPerSecond)
            .arg(summary.outputTokensPerSecond);
    }
    return {};
}

/// @p trace's iterations (one replica's, or decode worker 0's) against the engine @p used; @p clients: the clients of
/// a closed loop that replica serves (0: not a closed loop).
QString iterationViolation(const ServingTrace& trace, const EngineOptions& used, int clients)
{
    // Prefill-first batching runs prefill batches (at most the budget) and decode batches (at most max_num_seqs) apart.
    const std::int64_t tokenCap = batchingOf(used) == Batching::PrefillFirst
        ? std::max<std::int64_t>(used.maxNumBatchedTokens, used.maxNumSeqs)
        : used.maxNumBatchedTokens;
    for (size_t i = 0; i < trace.iterations.size(); ++i) {
        const OccupancySample& sample = trace.iterations[i];
        QString problem;
        if (sample.usedBlocks < 0 || sample.usedBlocks > trace.kvBlocks) {
            problem = QStringLiteral("%1 of %2 KV blocks in use").arg(sample.usedBlocks).arg(trace.kvBlocks);
        } else if (sample.running > used.maxNumSeqs) {
            problem = QStringLiteral("%1 sequences running, max_num_seqs %2").arg(sample.running).arg(used.maxNumSeqs);
        } else if (sample.batchedTokens < 1 || sample.batchedTokens > tokenCap) {
            problem = QStringLiteral("%1 tokens in one iteration, cap %2").arg(sample.batchedTokens).arg(tokenCap);
        } else if (clients > 0 && sample.running + sample.waiting + sample.swapped > clients) {
            problem = QStringLiteral("%1 running, %2 waiting and %3 swapped out with %4 clients per replica")
                          .arg(sample.running)
                          .arg(sample.waiting)
                          .arg(sample.swapped)
                          .arg(clients);
        } else if (sample.preemptions < (i > 0 ? trace.iterations[i - 1].preemptions : 0)
            || sample.preemptions > trace.preemptions) {
            problem = QStringLiteral("%1 preemptions so far, %2 in the whole run")
                          .arg(sample.preemptions)
                          .arg(trace.preemptions);
        }
        if (!problem.isEmpty()) {
            return QStringLiteral("iteration %1: ").arg(i) + problem;
        }
    }
    return {};
}

/// @p trace's requests against the bounds of the scenarios that prefill them (@p prefill) and decode them (@p decode:
/// the same for aggregated serving); @p clients as iterationViolation.
QString requestViolation(const config::Scenario& prefill, const config::Scenario& decode, const ServingTrace& trace,
    const Draw& draw, int clients)
{
    const double active = activeLayerParameters(prefill.model);
    const double minItl = active * config::bytesPerElement(decode.run.precision.weights)
        / (decode.run.parallelism.tp * decode.hardware.gpu.hbmBandwidth) / (draw.options.speculative.draftTokens + 1);
    // A shared prefix at most, or a pooled prompt's all but its last token.
    const bool pooled = draw.workload.promptPool > 0 && draw.workload.arrival != ArrivalKind::Trace;
    const double sharedAtMost = static_cast<double>(draw.workload.sharedPrefixTokens);
    const double tp = prefill.run.parallelism.tp;
    const double pp = prefill.run.parallelism.pp;
    const double peak = prefill.hardware.gpu.tensorPeak(prefill.run.precision.compute);
    double latencySum = 0;
    double makespan = 0;
    for (const RequestRecord& request : trace.requests) {
        const double values[] = { request.arrivalSeconds, request.firstTokenSeconds, request.finishSeconds };
        for (double value : values) {
            if (!std::isfinite(value) || value < 0) {
                return QStringLiteral("request %1 has a time %2").arg(request.id).arg(value);
            }
        }
        if (request.firstTokenSeconds < request.arrivalSeconds || request.finishSeconds < request.firstTokenSeconds) {
            return QStringLiteral("request %1: arrives %2 s, first token %3 s, last %4 s")
                .arg(request.id)
                .arg(request.arrivalSeconds)
                .arg(request.firstTokenSeconds)
                .arg(request.finishSeconds);
        }
        const double prompt = static_cast<double>(request.promptTokens);
        const double cachedAtMost = !draw.options.prefixCaching ? 0 : pooled ? prompt - 1 : sharedAtMost;
        const double computed = std::max(1.0, prompt - cachedAtMost);
        const double minTtft = 2 * active * computed / (tp * pp * peak);
        if (request.ttft() < minTtft * (1 - kRounding)) {
            return QStringLiteral("request %1: TTFT %2 s is below the %3 s its %4 computed prompt tokens need at peak")
                .arg(request.id)
                .arg(request.ttft())
                .arg(minTtft)
                .arg(computed);
        }
        if (request.outputTokens > 1 && request.itl() < minItl * (1 - kRounding)) {
            return QStringLiteral("request %1: ITL %2 s is below the %3 s of streaming its weights from HBM")
                .arg(request.id)
                .arg(request.itl())
                .arg(minItl);
        }
        latencySum += request.e2e();
        makespan = std::max(makespan, request.finishSeconds);
    }
    if (clients > 0 && latencySum > clients * makespan * (1 + kRounding)) {
        return QStringLiteral("closed loop of %1 clients: latencies add up to %2 s in a %3 s run")
            .arg(clients)
            .arg(latencySum)
            .arg(makespan);
    }
    return {};
}

/// The first broken bound of a served workload: its requests, then @p engine's iterations, then the summary.
QString servingViolation(const config::Scenario& prefill, const config::Scenario& decode, const ServingTrace& trace,
    const EngineOptions& engine, const ServingSummary& summary, const Draw& draw, int clients)
{
    QString problem = requestViolation(prefill, decode, trace, draw, clients);
    if (problem.isEmpty()) {
        problem = iterationViolation(trace, engine, clients);
    }
    return problem.isEmpty() ? summaryViolation(summary) : problem;
}

/// The failure message of draw number @p attempt: the set-up drawn and the bound it broke.
QString drawFailure(int attempt, const Draw& draw, const QString& problem)
{
    return QStringLiteral("draw %1 (%2): %3").arg(attempt).arg(QString::fromStdString(draw.describe()), problem);
}

} // namespace

class TstServingProperties : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void randomSetUpsObeyPhysicsAndTheirSchedulers()
    {
        const config::ConfigLoader loader = test::projectLoader();
        const SetUpDrawer drawer(loader);
        std::mt19937 random(20261129);
        int valid = 0;
        int attempts = 0;
        int preempting = 0;
        int cached = 0;
        int swapping = 0;
        int pooled = 0;
        while (valid < RAPID_SERVING_PROPERTY_CASES && attempts < 20 * RAPID_SERVING_PROPERTY_CASES) {
            ++attempts;
            const Draw draw = drawer.draw(random);
            config::Scenario scenario;
            try {
                scenario = loader.loadScenario(draw.model, draw.hardware, "llama-serve-a100", draw.overrides);
            } catch (const config::ConfigError&) {
                continue; // the loader refuses the split (heads, layers) or the memory: not a valid set-up
            }
            ServingResult result;
            try {
                result = simulateServing(scenario, draw.workload, draw.options);
            } catch (const std::invalid_argument&) {
                continue; // no room for a KV cache, a request beyond the cache or the context: refused, not served
            } catch (const std::logic_error& error) {
                QFAIL(qPrintable(drawFailure(attempts, draw, QString::fromUtf8(error.what()))));
            }
            ++valid;
            preempting += result.summary.preemptions > 0;
            cached += result.summary.prefixCacheHitRate > 0;
            pooled += draw.workload.promptPool > 0;
            const int clients = draw.workload.arrival == ArrivalKind::ClosedLoop
                ? draw.workload.concurrency / result.summary.replicas
                : 0;
            QString problem
                = servingViolation(scenario, scenario, result.trace, result.options, result.summary, draw, clients);
            // Swapping makes every preemption a swap, recomputing none.
            swapping += result.summary.swapOuts > 0;
            const int expectedSwaps = result.options.preemption == Preemption::Swap ? result.summary.preemptions : 0;
            if (problem.isEmpty() && result.summary.swapOuts != expectedSwaps) {
                problem = QStringLiteral("%1 swaps for %2 preemptions (%3)")
                              .arg(result.summary.swapOuts)
                              .arg(result.summary.preemptions)
                              .arg(QLatin1String(toString(result.options.preemption)));
            }
            // TensorRT-LLM's GUARANTEED_NO_EVICT reserves a request's whole run before it starts: never a preemption.
            if (problem.isEmpty() && capacityPolicyOf(result.options) == CapacityPolicy::GuaranteedNoEvict
                && result.summary.preemptions > 0) {
                problem = QStringLiteral("%1 preemptions under guaranteed-no-evict").arg(result.summary.preemptions);
            }
            QVERIFY2(problem.isEmpty(), qPrintable(drawFailure(attempts, draw, problem)));
        }
        QCOMPARE(valid, RAPID_SERVING_PROPERTY_CASES);
        // The draw reaches the regimes the bounds are about: KV pressure and prefix hits.
        // Swapping draws preempt rarely (3 of 2,000): the sanitizer build's first 100 draws need not reach one.
        QVERIFY2(preempting > 0 && cached > 0 && pooled > 0 && (swapping > 0 || valid < 1000),
            qPrintable(QStringLiteral("%1 draws preempted, %2 swapped, %3 hit the prefix cache, %4 drew prompt pools")
                           .arg(preempting)
                           .arg(swapping)
                           .arg(cached)
                           .arg(pooled)));
        qInfo("%d valid set-ups of %d drawn, %d preempting, %d swapping, %d with prefix-cache hits", valid, attempts,
            preempting, swapping, cached);
    }

    void randomDisaggregatedSetUpsObeyPhysics()
    {
        const config::ConfigLoader loader = test::projectLoader();
        const SetUpDrawer drawer(loader);
        std::mt19937 random(20261130);
        int valid = 0;
        int attempts = 0;
        const int cases = std::max(1, RAPID_SERVING_PROPERTY_CASES / 4);
        while (valid < cases && attempts < 20 * cases) {
            ++attempts;
            const Draw draw = drawer.drawDisaggregated(random);
            DisaggregatedSpec spec;
            try {
                spec.prefill = loader.loadScenario(draw.model, draw.hardware, "llama-serve-a100", draw.overrides);
                spec.decode = loader.loadScenario(draw.model, draw.hardware, "llama-serve-a100", draw.decodeOverrides);
            } catch (const config::ConfigError&) {
                continue;
            }
            spec.prefillWorkers = draw.prefillWorkers;
            spec.decodeWorkers = draw.decodeWorkers;
            spec.prefillOptions = draw.options;
            spec.decodeOptions = draw.options;
            DisaggregatedResult result;
            try {
                result = simulateDisaggregated(spec, draw.workload);
            } catch (const std::invalid_argument&) {
                continue;
            } catch (const std::logic_error& error) {
                QFAIL(qPrintable(drawFailure(attempts, draw, QString::fromUtf8(error.what()))));
            }
            ++valid;
            // Decode worker 0 serves at most every client; the trace holds every request of the deployment.
            const int clients = draw.workload.arrival == ArrivalKind::ClosedLoop ? draw.workload.concurrency : 0;
            QString problem = servingViolation(
                spec.prefill, spec.decode, result.trace, result.decodeOptions, result.summary, draw, clients);
            if (problem.isEmpty() && !(result.meanKvTransferSeconds >= 0)) {
                problem = QStringLiteral("mean KV transfer %1 s").arg(result.meanKvTransferSeconds);
            }
            QVERIFY2(problem.isEmpty(), qPrintable(drawFailure(attempts, draw, problem)));
        }
        QCOMPARE(valid, cases);
        qInfo("%d valid disaggregated set-ups of %d drawn", valid, attempts);
    }
};

QTEST_GUILESS_MAIN(TstServingProperties)
#include "tst_servingproperties.moc"

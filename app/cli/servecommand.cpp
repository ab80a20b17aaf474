// SPDX-License-Identifier: GPL-3.0-or-later
// `rapid serve`: an inference scenario served under load by a continuous-batching engine (core/serving).
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "serveoptions.h"
#include "servesummary.h"
#include "servingdefaults.h"
#include "workloaddraws.h"

#include "config/units.h"
#include "serving/disaggregation.h"
#include "serving/requesttrace.h"
#include "serving/servingjson.h"
#include "serving/servingsimulator.h"
#include "serving/servingsweep.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

namespace rapid::cli {

namespace {

/// @p options followed by speculative decoding's (serveoptions.cpp, speculativeOf), last in the help.
std::vector<Arguments::Option> withSpeculativeOptions(std::vector<Arguments::Option> options)
{
    const std::vector<Arguments::Option> speculative {
        { "speculative-tokens", "K",
            "speculative decoding: K draft tokens (1-16) verified with each decoding request's next token; each "
            "is kept with the probability --acceptance when those before it were (default 0: off)",
            false },
        { "acceptance", "P",
            "with --speculative-tokens: a draft token's acceptance probability, 0 to 1 (no default: it depends on "
            "the draft and the data; vLLM and SGLang log it)",
            false },
        { "acceptance-length", "L",
            "with --speculative-tokens, instead of --acceptance: the mean tokens per verification (1 to K + 1) "
            "the draft is reported to reach (EAGLE's acceptance length); the per-draft acceptance is solved from "
            "it",
            false },
        { "draft", "NAME",
            "with --speculative-tokens: head (an EAGLE or MTP head of --draft-layers decoder layers and the "
            "target's LM head, one pass per draft token; default) or ngram (prompt lookup on the CPU)",
            false },
        { "draft-layers", "N", "with --draft head: the head's decoder layers (default 1)", false }
    };
    options.insert(options.end(), speculative.begin(), speculative.end());
    return options;
}

/// @p options followed by what rapid serve writes besides its summary.
std::vector<Arguments::Option> withOutputOptions(std::vector<Arguments::Option> options)
{
    const std::vector<Arguments::Option> outputs {
        { "json", "FILE", "write the summary as JSON (- for standard output)", false },
        { "csv", "FILE",
            "write one row per request of the simulated replica (the busiest, when replicas share the load "
            "unevenly; a sweep: one row per load)",
            false },
        { "iterations-csv", "FILE",
            "write one row per engine iteration of that replica (one load): its end, the KV-cache blocks in use, the "
            "requests running, waiting and swapped out, the tokens computed and the preemptions so far",
            false },
    };
    options.insert(options.end(), outputs.begin(), outputs.end());
    return options;
}

Arguments serveArguments()
{
    std::vector<Arguments::Option> options = {
        { "concurrency", "N",
            "closed loop of N clients (the default: 1); a list such as 1,2,4,8 sweeps them: the latency-throughput "
            "curve and its Pareto front",
            false },
        { "rate", "R", "open loop: Poisson arrivals at R requests per second; a list sweeps them", false },
        { "trace", "FILE", "replay a CSV trace (arrival_s,input_tokens,output_tokens)", false },
        { "requests", "N",
            "requests to simulate (default 10 x concurrency, or 1000 at a rate rounded up to a multiple of the "
            "data-parallel replicas)",
            false },
        { "ramp", "TIME",
            "closed loop: spread the clients' first requests evenly over this time, with its unit (aiperf's "
            "--concurrency-ramp-duration; default: all at once)",
            false },
        { "warmup", "N",
            "leave the first N requests out of every statistic, throughput included (aiperf's "
            "--warmup-request-count; default 0)",
            false },
        { "prefill-workers", "N",
            "disaggregated serving: N prefill workers (with --decode-workers), on the cluster's first GPUs", false },
        { "decode-workers", "N", "disaggregated serving: N decode workers, on the GPUs after the prefill workers",
            false },
        { "pool-splits", "LIST",
            "disaggregated serving at several prefill:decode worker splits, e.g. 1:3,2:2,3:1: a table of "
            "throughput and latency per split and its Pareto front (instead of --prefill-workers/--decode-workers)",
            false },
        { "prefill-tp", "N", "tensor parallelism of a prefill worker (default: run.parallelism.tp)", false },
        { "decode-tp", "N", "tensor parallelism of a decode worker (default: run.parallelism.tp)", false },
        { "input-tokens", "N", "prompt length of every request, or their mean (default: run.inference.prompt_length)",
            false },
        { "output-tokens", "N", "output length of every request, or their mean (default: run.inference.decode_length)",
            false },
        { "seed", "N", "seed of the arrivals and the drawn lengths (default 1)", false },
        { "shared-prefix", "N",
            "prompt tokens every request shares (a system prompt; with --trace, requests of one prefix_id): "
            "served from the prefix cache once computed (default 0)",
            false },
        { "no-prefix-caching", "", "recompute shared prefixes (vLLM V1 caches them by default)", false },
        { "engine", "NAME",
            "whose defaults and batching: vllm (default), trtllm (TensorRT-LLM) or sglang (prefill batches run "
            "alone)",
            false },
        { "max-num-seqs", "N", "sequences per iteration (default as vllm serve: 1024 on H100/H200/B200, 256 otherwise)",
            false },
        { "max-num-batched-tokens", "N",
            "tokens per iteration (default as vllm serve: 8192 on H100/H200/B200, 2048 otherwise)", false },
        { "no-chunked-prefill", "", "prefill every prompt in one iteration", false },
        { "tensorrt-engine", "",
            "with --engine trtllm: serve a TensorRT engine built by trtllm-build (NIM's engines) instead of the "
            "PyTorch backend, so a Llama model's all-reduces are not fused with the residual add and RMSNorm",
            false },
        { "block-size", "N", "tokens per KV-cache block (default: vllm 16, trtllm 32, sglang 1)", false },
        { "max-prefill-tokens", "N",
            "with --engine sglang: prompt tokens one scheduling pass admits (max_prefill_tokens, default 16384): "
            "a prompt beyond what is left waits for the next pass unless it is the first; "
            "--max-num-batched-tokens is sglang's chunked_prefill_size",
            false },
        { "gpu-memory-utilization", "F",
            "share of HBM the engine uses (default: vllm 0.9, trtllm 0.9 of what is free, sglang by GPU and tp)",
            false },
        { "kv-blocks", "N", "KV-cache blocks per replica instead of the derived number", false },
        { "capacity-policy", "NAME",
            "when a waiting request may start: max-utilization (when its next blocks are free; preempts later: "
            "vllm's default), guaranteed-no-evict (when its whole prompt and output fit beside the running "
            "requests' reservations: trtllm's) or new-token-ratio (when its prompt and output fit the free cache "
            "less a decaying share of the running requests' remaining outputs: sglang's)",
            false },
        { "batching", "NAME",
            "mixed (decodes and prompt chunks in one iteration: vllm's and trtllm's; sglang with "
            "--enable-mixed-chunk) or prefill-first (prompt batches run alone: sglang's default)",
            false },
        { "overlap-scheduler", "NAME",
            "on (the next iteration's batch is composed while the GPU runs this one: it takes the requests that "
            "had arrived when this one started, and a finished request runs one more, discarded, decode step; "
            "trtllm's and sglang's default) or off (vllm's, and trtllm's with --tensorrt-engine)",
            false },
        { "preemption", "NAME",
            "a preempted request's KV cache is: recompute (freed, computed again: default) or swap (copied to "
            "host memory and back over the GPU's host link: vLLM V0's --preemption-mode swap; --engine vllm)",
            false },
        { "swap-space", "GIB", "host memory per GPU for swapped KV blocks (vLLM's --swap-space, default 4)", false },
        { "host-time", "TIME",
            "the engine's CPU time per iteration outside the GPU (scheduling, inputs, outputs), with a unit "
            "(default 0)",
            false },
        { "host-time-per-request", "TIME",
            "the engine's CPU time per sequence in an iteration, with a unit (default 0)", false },
        { "overlap-host", "",
            "the engine prepares the next iteration while the GPU runs this one (vLLM V1 async scheduling; implied "
            "by the overlap scheduler): only host time beyond the GPU's shows",
            false },
        { "slo-ttft", "TIME", "time-to-first-token limit for goodput, with a unit (e.g. 500ms)", false },
        { "slo-itl", "TIME", "inter-token latency limit for goodput, with a unit (e.g. 50ms)", false },
        { "backend", "NAME", "network backend of the collectives: analytical (default), congestion or ideal", false }
    };
    return Arguments("serve",
        "Serves an inference scenario under load: requests arrive (a closed loop of clients, Poisson or gamma arrivals "
        "or a trace), a continuous-batching engine (vLLM V1's scheduler, or TensorRT-LLM's or SGLang's with --engine: "
        "chunked prefill, paged KV cache, preemption by recomputation or swapping, or no-evict admission) batches "
        "them, and every iteration is timed by the operator model. Prints TTFT, ITL and end-to-end latency (mean and "
        "percentiles), throughput and goodput. A workspace's serving: section (the workbench's Serving tab set-up) "
        "gives the options the command line leaves out.",
        scenarioOptions(withOutputOptions(withWorkloadDrawOptions(withSpeculativeOptions(std::move(options))))),
        "[WORKSPACE]");
}

/// What every request shares, in one load or a sweep: the lengths, the Poisson seed and the shared prefix; and
/// one of --concurrency, --rate and --trace at most.
serving::WorkloadSpec requestShapeOf(const Arguments& arguments, const config::RunSpec& run)
{
    serving::WorkloadSpec workload;
    const int given = (arguments.value("concurrency") ? 1 : 0) + (arguments.value("rate") ? 1 : 0)
        + (arguments.value("trace") ? 1 : 0);
    if (given > 1) {
        throw UsageError("give one of --concurrency, --rate and --trace");
    }
    workload.promptTokens = boundedInteger(arguments, "input-tokens", std::max(1, run.promptLength), 1, 10'000'000);
    workload.outputTokens = boundedInteger(arguments, "output-tokens", std::max(1, run.decodeLength), 1, 10'000'000);
    workload.seed = static_cast<std::uint64_t>(boundedInteger(arguments, "seed", 1, 0, INT64_MAX));
    workload.sharedPrefixTokens = boundedInteger(arguments, "shared-prefix", 0, 0, 10'000'000);
    readWorkloadDraws(arguments, workload);
    // A shared prefix longer than the prompts' (mean) length is a slip, not a prefix (spread prompts are drawn again
    // below it; a trace's prompts vary, and each shares at most its own length).
    if (!arguments.value("trace") && workload.sharedPrefixTokens > workload.promptTokens) {
        throw UsageError("--shared-prefix " + std::to_string(workload.sharedPrefixTokens)
            + ": longer than the prompt's " + std::to_string(workload.promptTokens)
            + " tokens (--input-tokens); expected 0 to " + std::to_string(workload.promptTokens));
    }
    return workload;
}

serving::WorkloadSpec workloadOf(const Arguments& arguments, const config::RunSpec& run)
{
    serving::WorkloadSpec workload = requestShapeOf(arguments, run);
    constexpr long long kMaxRequests = 10'000'000;
    if (auto trace = arguments.value("trace")) {
        workload.arrival = serving::ArrivalKind::Trace;
        workload.trace = serving::readRequestTrace(*trace);
        workload.requests = static_cast<int>(workload.trace.size());
    } else if (arguments.value("rate")) {
        workload.arrival = serving::ArrivalKind::Poisson;
        workload.ratePerSecond = boundedNumber(arguments, "rate", 1, 1e-6, 1e6);
        const bool pools = arguments.value("prefill-workers") || arguments.value("decode-workers");
        workload.requests = static_cast<int>(boundedInteger(
            arguments, "requests", serving::defaultPoissonRequests(pools ? 1 : run.parallelism.dp), 1, kMaxRequests));
    } else {
        workload.concurrency = static_cast<int>(boundedInteger(arguments, "concurrency", 1, 1, 100'000));
        workload.requests
            = static_cast<int>(boundedInteger(arguments, "requests", 10LL * workload.concurrency, 1, kMaxRequests));
        workload.rampSeconds = duration(arguments, "ramp");
    }
    if (arguments.value("ramp") && workload.arrival != serving::ArrivalKind::ClosedLoop) {
        throw UsageError("--ramp: only a closed loop (--concurrency) ramps its clients");
    }
    if (workload.requests == 1 && boundedInteger(arguments, "warmup", 0, 0, kMaxRequests) > 0) {
        // The bound below would read "expected 0 to 0": say what leaves no room instead.
        throw UsageError("--warmup " + arguments.value("warmup").value_or("") + ": one request is simulated "
            + "(--requests), and the warm-up must leave at least one to measure; simulate more requests");
    }
    workload.warmupRequests = static_cast<int>(boundedInteger(arguments, "warmup", 0, 0, workload.requests - 1));
    return workload;
}

std::optional<std::pair<serving::SweepLoad, std::vector<double>>> sweepLoads(const Arguments& arguments)
{
    for (const auto& [name, load] : { std::pair { "concurrency", serving::SweepLoad::Concurrency },
             std::pair { "rate", serving::SweepLoad::Rate } }) {
        const std::optional<std::string> text = arguments.value(name);
        if (!text || text->find(',') == std::string::npos) {
            continue;
        }
        std::vector<double> loads;
        std::string bad;
        if (!serving::parseLoadList(*text, load, loads, bad)) {
            throw UsageError(std::string("--") + name + " \"" + *text + "\": \"" + bad + "\" is not "
                + (load == serving::SweepLoad::Concurrency ? "a whole number of clients from 1 to 100000"
                                                           : "a rate above 0 and at most 1e6 requests per second"));
        }
        constexpr size_t kMaxPoints = 1000;
        if (loads.size() > kMaxPoints) {
            throw UsageError(std::string("--") + name + ": at most 1000 loads in one sweep");
        }
        return std::pair { load, loads };
    }
    return std::nullopt;
}

/// Prints @p sweep and writes its --json and --csv.
int finishSweep(const Invocation& invocation, const Arguments& arguments, const serving::ServingSweep& sweep)
{
    printSweep(invocation.out, sweep);
    const bool written = writeOutput(arguments.value("json"), invocation, "serve", [&](std::ostream& out) {
        report::writeJson(out, serving::servingSweepJson(sweep));
    }) && writeOutput(arguments.value("csv"), invocation, "serve", [&](std::ostream& out) {
        serving::writeSweepCsv(out, sweep);
    });
    return written ? Success : InputError;
}

/// One pool's scenario: the run with the pool's tensor parallelism and as many data-parallel replicas as fill the
/// cluster (the places a worker can take).
config::Scenario poolScenario(const Arguments& arguments, const config::ConfigLoader& loader, int clusterGpus,
    const config::ParallelismSpec& parallelism, const std::string& tpOption)
{
    const int tp = static_cast<int>(boundedInteger(arguments, tpOption, parallelism.tp, 1, 4096));
    const int workerGpus = tp * parallelism.pp * parallelism.cp;
    if (clusterGpus % workerGpus != 0) {
        throw UsageError("--" + tpOption + " " + std::to_string(tp) + ": a worker of " + std::to_string(workerGpus)
            + " GPUs (tp x pp x cp) does not divide the cluster's " + std::to_string(clusterGpus) + " GPUs");
    }
    return loadScenario(arguments, loader,
        { "run.parallelism.tp=" + std::to_string(tp), "run.parallelism.dp=" + std::to_string(clusterGpus / workerGpus),
            "run.parallelism.mapping={}" });
}

/// The splits of --pool-splits: "P:D" pairs of whole numbers of workers, 1 to 4096 each.
std::vector<std::pair<int, int>> poolSplits(const std::string& text)
{
    std::vector<std::pair<int, int>> splits;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        // Each side is 1 to 4 digits: a longer number is out of range before it could overflow an int.
        const std::size_t colon = item.find(':');
        const auto workers = [](const std::string& digits) {
            const bool whole
                = !digits.empty() && digits.size() <= 4 && digits.find_first_not_of("0123456789") == std::string::npos;
            return whole ? std::stoi(digits) : 0;
        };
        const int prefill = colon == std::string::npos ? 0 : workers(item.substr(0, colon));
        const int decode = colon == std::string::npos ? 0 : workers(item.substr(colon + 1));
        if (prefill < 1 || decode < 1 || prefill > 4096 || decode > 4096) {
            throw UsageError("--pool-splits \"" + text + "\": \"" + item
                + "\" is not a split of prefill:decode workers such as 2:6 (1 to 4096 each)");
        }
        splits.emplace_back(prefill, decode);
        start = comma + 1;
    }
    constexpr std::size_t kMaxSplits = 1000;
    if (splits.size() > kMaxSplits) {
        throw UsageError("--pool-splits: at most 1000 splits in one sweep");
    }
    return splits;
}

/// `rapid serve --pool-splits P:D,...`: the table of one load at every split.
int servePoolSplits(const Invocation& invocation, const Arguments& arguments, const serving::DisaggregatedSpec& base,
    const serving::WorkloadSpec& workload, const serving::ServingSlo& slo, sim::NetworkBackend backend)
{
    std::vector<serving::PoolSplitPoint> points;
    try {
        points = serving::sweepPoolSplits(base, poolSplits(*arguments.value("pool-splits")), workload, slo, backend);
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid serve: " << error.what() << "\n";
        return InputError;
    }
    char line[256];
    std::snprintf(line, sizeof line, "%9s %5s %11s %10s %10s %9s %9s %9s %9s %9s %8s  %s\n", "P:D", "GPUs", "out tok/s",
        "tok/s/GPU", "tok/s/user", "TTFT p50", "TTFT p99", "ITL mean", "ITL p99", "KV move", "goodput", "Pareto");
    invocation.out << line;
    for (const serving::PoolSplitPoint& point : points) {
        const serving::ServingSummary& s = point.summary;
        const std::string split = std::to_string(point.prefillWorkers) + ":" + std::to_string(point.decodeWorkers);
        std::snprintf(line, sizeof line, "%9s %5d %11.1f %10.2f %10.2f %9s %9s %9s %9s %9s %8.3f  %s\n", split.c_str(),
            s.gpus, s.outputTokensPerSecond, s.outputTokensPerSecondPerGpu, s.outputTokensPerSecondPerUser,
            msText(s.ttft.p50).c_str(), msText(s.ttft.p99).c_str(), msText(s.itl.mean).c_str(),
            msText(s.itl.p99).c_str(), msText(point.meanKvTransferSeconds).c_str(), s.goodputRequestsPerSecond,
            point.pareto ? "*" : "");
        invocation.out << line;
    }
    invocation.out
        << "(latencies in ms, goodput in requests/s meeting the SLOs; * = on the Pareto front of tokens/s per "
           "GPU against tokens/s per user)\n";
    const bool written = writeOutput(arguments.value("json"), invocation, "serve", [&](std::ostream& out) {
        report::Json json = report::Json::array();
        for (const serving::PoolSplitPoint& point : points) {
            json.push_back({ { "prefill_workers", point.prefillWorkers }, { "decode_workers", point.decodeWorkers },
                { "mean_kv_transfer_s", point.meanKvTransferSeconds }, { "pareto", point.pareto },
                { "summary", serving::servingSummaryJson(point.summary) } });
        }
        report::writeJson(out, json);
    }) && writeOutput(arguments.value("csv"), invocation, "serve", [&](std::ostream& out) {
        out << "prefill_workers,decode_workers,gpus,output_tokens_per_s_per_gpu,output_tokens_per_s_per_user,"
               "ttft_p50_s,ttft_p99_s,itl_mean_s,itl_p99_s,mean_kv_transfer_s,goodput_requests_per_s,pareto\n";
        out.precision(9);
        for (const serving::PoolSplitPoint& point : points) {
            const serving::ServingSummary& s = point.summary;
            out << point.prefillWorkers << ',' << point.decodeWorkers << ',' << s.gpus << ','
                << s.outputTokensPerSecondPerGpu << ',' << s.outputTokensPerSecondPerUser << ',' << s.ttft.p50 << ','
                << s.ttft.p99 << ',' << s.itl.mean << ',' << s.itl.p99 << ',' << point.meanKvTransferSeconds << ','
                << s.goodputRequestsPerSecond << ',' << (point.pareto ? 1 : 0) << '\n';
        }
    });
    return written ? Success : InputError;
}

/// The pools of @p spec at every load of @p loads (as the Serving tab serves them): a sweep table of the decode
/// workers' engine, each point simulateDisaggregated of the same pools.
int servePoolLoads(const Invocation& invocation, const Arguments& arguments, const serving::DisaggregatedSpec& spec,
    const config::RunSpec& run, const std::pair<serving::SweepLoad, std::vector<double>>& loads,
    const serving::ServingSlo& slo, sim::NetworkBackend backend)
{
    const serving::WorkloadSpec base = requestShapeOf(arguments, run);
    const int requests = static_cast<int>(boundedInteger(arguments, "requests", 0, 0, 10'000'000));
    serving::ServingSweep sweep;
    try {
        sweep = serving::sweepLoads(base, loads.first, loads.second, requests, 1, [&](const serving::WorkloadSpec& w) {
            return serving::simulateDisaggregated(spec, w, slo, backend).servingResult();
        });
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid serve: " << error.what() << "\n";
        return InputError;
    }
    invocation.out << "pools      " << spec.prefillWorkers << " prefill and " << spec.decodeWorkers
                   << " decode worker(s); the engine line is a decode worker's\n";
    printWorkloadDraws(invocation.out, base);
    return finishSweep(invocation, arguments, sweep);
}

/// `rapid serve --prefill-workers P --decode-workers D`: a disaggregated deployment at one load or a list of them.
int serveDisaggregated(const Invocation& invocation, const Arguments& arguments, const config::ConfigLoader& loader,
    const serving::EngineOptions& options, const serving::ServingSlo& slo, sim::NetworkBackend backend)
{
    const bool splits = arguments.value("pool-splits").has_value();
    if (splits && (arguments.value("prefill-workers") || arguments.value("decode-workers"))) {
        throw UsageError("--pool-splits: give the splits or --prefill-workers/--decode-workers, not both");
    }
    if (!splits && (!arguments.value("prefill-workers") || !arguments.value("decode-workers"))) {
        throw UsageError("--prefill-workers and --decode-workers: give both for disaggregated serving");
    }
    const auto loads = sweepLoads(arguments);
    if (loads && splits) {
        throw UsageError("--pool-splits: one load at a time, not with a sweep of loads");
    }
    if ((loads || splits) && arguments.value("iterations-csv")) {
        throw UsageError("--iterations-csv: one load and one split at a time");
    }
    const bool presets = arguments.value("model") && arguments.value("hardware") && arguments.value("run");
    const bool workspace = arguments.value("workspace") || !arguments.positional().empty();
    if (!presets && !workspace) {
        throw UsageError("--prefill-workers/--decode-workers: give a workspace, or --model, --hardware and --run (each "
                         "pool takes the run with its own tp and as many replicas as fill the hardware)");
    }
    // The pools' shapes come from the cluster and the run alone: with presets, the run's own dp need not fill the
    // cluster; a workspace is a whole (valid) scenario.
    config::HardwareSpec hardware;
    config::RunSpec run;
    if (presets) {
        std::vector<std::string> hardwareOverrides;
        std::vector<std::string> runOverrides;
        for (const std::string& override : arguments.values("set")) {
            (override.starts_with("hardware.") ? hardwareOverrides : runOverrides).push_back(override);
        }
        hardware = loader.loadHardware(*arguments.value("hardware"), hardwareOverrides);
        run = loader.loadRun(*arguments.value("run"), runOverrides);
    } else {
        const config::Scenario whole = loadScenario(arguments, loader);
        hardware = whole.hardware;
        run = whole.run;
    }
    serving::DisaggregatedSpec spec;
    spec.prefillWorkers = static_cast<int>(boundedInteger(arguments, "prefill-workers", 1, 1, 4096));
    spec.decodeWorkers = static_cast<int>(boundedInteger(arguments, "decode-workers", 1, 1, 4096));
    spec.prefill = poolScenario(arguments, loader, hardware.cluster.totalGpus(), run.parallelism, "prefill-tp");
    spec.decode = poolScenario(arguments, loader, hardware.cluster.totalGpus(), run.parallelism, "decode-tp");
    spec.prefillOptions = options;
    spec.decodeOptions = options;
    if (splits) {
        serving::WorkloadSpec workload;
        try {
            workload = workloadOf(arguments, run);
        } catch (const serving::RequestTraceError& error) {
            invocation.err << "rapid serve: --trace " << error.what() << "\n";
            return InputError;
        }
        return servePoolSplits(invocation, arguments, spec, workload, slo, backend);
    }
    if (loads) {
        return servePoolLoads(invocation, arguments, spec, run, *loads, slo, backend);
    }
    serving::DisaggregatedResult result;
    try {
        result = serving::simulateDisaggregated(spec, workloadOf(arguments, run), slo, backend);
    } catch (const serving::RequestTraceError& error) {
        invocation.err << "rapid serve: --trace " << error.what() << "\n";
        return InputError;
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid serve: " << error.what() << "\n";
        return InputError;
    }
    printDisaggregated(invocation.out, result, spec.prefillWorkers, spec.decodeWorkers);
    const bool written = writeOutput(arguments.value("json"), invocation, "serve", [&](std::ostream& out) {
        report::writeJson(out, serving::servingJson(result.servingResult()));
    }) && writeOutput(arguments.value("csv"), invocation, "serve", [&](std::ostream& out) {
        serving::writeRequestCsv(out, result.trace);
    }) && writeOutput(arguments.value("iterations-csv"), invocation, "serve", [&](std::ostream& out) {
        serving::writeIterationCsv(out, result.trace);
    });
    return written ? Success : InputError;
}

/// `rapid serve` over a list of loads.
int serveSweep(const Invocation& invocation, const Arguments& arguments, const config::Scenario& scenario,
    const std::pair<serving::SweepLoad, std::vector<double>>& loads, const serving::EngineOptions& options,
    const serving::ServingSlo& slo, sim::NetworkBackend backend)
{
    const serving::WorkloadSpec base = requestShapeOf(arguments, scenario.run);
    const int requests = static_cast<int>(boundedInteger(arguments, "requests", 0, 0, 10'000'000));
    serving::ServingSweep sweep;
    try {
        sweep = serving::sweepServing(scenario, base, loads.first, loads.second, requests, options, slo, backend);
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid serve: " << error.what() << "\n";
        return InputError;
    }
    printWorkloadDraws(invocation.out, base);
    return finishSweep(invocation, arguments, sweep);
}

} // namespace

int serveCommand(const Invocation& invocation)
{
    Arguments arguments = serveArguments();
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    applyWorkspaceServingDefaults(arguments);
    const std::string backendName = arguments.value("backend").value_or("analytical");
    const std::optional<sim::NetworkBackend> backend = sim::parseNetworkBackend(backendName);
    if (!backend) {
        throw UsageError("--backend \"" + backendName + "\": expected " + sim::networkBackendChoices());
    }
    serving::ServingSlo slo;
    slo.ttftSeconds = duration(arguments, "slo-ttft");
    slo.itlSeconds = duration(arguments, "slo-itl");
    const serving::EngineOptions options = engineOf(arguments);
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    if (arguments.value("prefill-workers") || arguments.value("decode-workers") || arguments.value("prefill-tp")
        || arguments.value("decode-tp") || arguments.value("pool-splits")) {
        return serveDisaggregated(invocation, arguments, loader, options, slo, *backend);
    }
    const config::Scenario scenario = loadScenario(arguments, loader);
    if (const auto loads = sweepLoads(arguments)) {
        if (arguments.value("ramp") || arguments.value("warmup") || arguments.value("iterations-csv")) {
            throw UsageError("--ramp, --warmup and --iterations-csv: one load at a time, not with a sweep of loads");
        }
        return serveSweep(invocation, arguments, scenario, *loads, options, slo, *backend);
    }
    serving::WorkloadSpec workload;
    serving::ServingResult result;
    try {
        workload = workloadOf(arguments, scenario.run);
        result = serving::simulateServing(scenario, workload, options, slo, *backend);
    } catch (const serving::RequestTraceError& error) {
        invocation.err << "rapid serve: --trace " << error.what() << "\n";
        return InputError;
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid serve: " << error.what() << "\n";
        return InputError;
    }
    printWorkloadDraws(invocation.out, workload);
    printSummary(invocation.out, result, std::nullopt);
    const bool written = writeOutput(arguments.value("json"), invocation, "serve", [&](std::ostream& out) {
        report::writeJson(out, serving::servingJson(result));
    }) && writeOutput(arguments.value("csv"), invocation, "serve", [&](std::ostream& out) {
        serving::writeRequestCsv(out, result.trace);
    }) && writeOutput(arguments.value("iterations-csv"), invocation, "serve", [&](std::ostream& out) {
        serving::writeIterationCsv(out, result.trace);
    });
    if (!written) {
        return InputError;
    }
    return Success;
}

} // namespace rapid::cli

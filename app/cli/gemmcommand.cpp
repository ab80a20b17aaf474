// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "format.h"

#include "compute/gemmmodel.h"
#include "config/configloader.h"
#include "config/weightonlymath.h"

#include <cstdio>
#include <fstream>
#include <ostream>
#include <stdexcept>

namespace rapid::cli {

namespace {

config::Precision parsePrecision(const std::string& text)
{
    for (int index = 0; index < config::kPrecisionCount; ++index) {
        const auto precision = static_cast<config::Precision>(index);
        if (text == config::toString(precision)) {
            return precision;
        }
    }
    throw UsageError("--precision must be one of fp32, tf32, bf16, fp16, fp8, int8, nvfp4 (got \"" + text + "\")");
}

std::int64_t dimension(const Arguments& arguments, const std::string& name, long long fallback)
{
    const long long value = arguments.integer(name, fallback);
    if (value < 1 || value > compute::kMaxGemmDimension) {
        throw UsageError("--" + name + " must be from 1 to 2^31 (" + std::to_string(compute::kMaxGemmDimension) + ")");
    }
    return value;
}

// Times are printed in microseconds: GEMMs of an LLM step span 1 us to 100 ms.
std::string micros(double seconds)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3f us", seconds * 1e6);
    return buffer;
}

void writeJson(std::ostream& json, const config::GpuSpec& gpu, const compute::GemmShape& shape,
    const compute::GemmEstimate& estimate)
{
    const compute::GemmTile& tile = estimate.tile;
    report::writeJson(json,
        { { "gpu", gpu.name },
            { "shape",
                { { "m", shape.m }, { "k", shape.k }, { "n", shape.n }, { "batch", shape.batch },
                    { "precision", config::toString(shape.precision) },
                    { "weights", config::toString(shape.storedWeights.value_or(shape.precision)) } } },
            { "tile",
                { { "cta_m", tile.ctaM }, { "cta_n", tile.ctaN }, { "cta_k", tile.ctaK }, { "stages", tile.stages },
                    { "threads", tile.threads }, { "registers_per_thread", tile.registersPerThread },
                    { "shared_bytes", tile.sharedBytes } } },
            { "ctas", estimate.ctaCount }, { "ctas_per_sm", estimate.ctasPerSm }, { "waves", estimate.waves },
            { "full_waves", estimate.fullWaves }, { "last_wave_fraction", estimate.lastWaveFraction },
            { "flops", estimate.flops },
            { "bytes",
                { { "hbm", estimate.hbmBytes }, { "l2", estimate.l2Bytes }, { "shared", estimate.sharedBytes } } },
            { "seconds",
                { { "compute", estimate.computeSeconds }, { "hbm", estimate.hbmSeconds }, { "l2", estimate.l2Seconds },
                    { "shared", estimate.sharedSeconds }, { "latency", estimate.latencySeconds },
                    { "pipeline", estimate.pipelineSeconds }, { "launch", estimate.launchSeconds },
                    { "total", estimate.totalSeconds } } },
            { "memory_latency_s", estimate.memoryLatency }, { "bound", toString(estimate.bound) } });
}

} // namespace

int gemmCommand(const Invocation& invocation)
{
    Arguments arguments("gemm",
        "Predicted time of one GEMM C[m x n] = A[m x k] . B[k x n] on one GPU: chosen CTA tile, waves, "
        "bytes at each memory level, time of each roof and the bound.",
        { { "m", "M", "rows of A and C (1 to 2^31, as cuBLAS)", false },
            { "k", "K", "columns of A, rows of B (1 to 2^31)", false },
            { "n", "N", "columns of B and C (1 to 2^31)", false },
            { "batch", "COUNT",
                "independent GEMMs of this shape in one kernel, 1 to 2^31 (default 1); every operand at most 2^60 "
                "elements over the batch",
                false },
            { "precision", "NAME", "fp32, tf32, bf16, fp16, fp8, int8 or nvfp4 (default bf16)", false },
            { "weights", "NAME",
                "format B is stored in when the kernel dequantises it first: int4 (W4A16, AWQ/GPTQ group scales) or "
                "mxfp4 (OCP MX block scales, gpt-oss's experts), with bf16 or fp16 precision (mxfp4 also with fp8 "
                "on Blackwell: MXFP8 x MXFP4, no dequantisation); default: B in the GEMM's precision",
                false },
            { "hardware", "NAME|FILE", "hardware or GPU preset name, or YAML file", false },
            { "set", "KEY=VALUE", "override a key, e.g. hardware.gpu.derate.clock=0.74", true },
            { "json", "FILE", "also write the estimate as JSON (- for standard output)", false } });
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    compute::GemmShape shape;
    shape.m = dimension(arguments, "m", 0);
    shape.k = dimension(arguments, "k", 0);
    shape.n = dimension(arguments, "n", 0);
    shape.batch = dimension(arguments, "batch", 1);
    shape.precision = parsePrecision(arguments.value("precision").value_or("bf16"));
    if (config::isWeightOnlyFormat(shape.precision)) {
        const std::string word = config::toString(shape.precision);
        throw UsageError(
            "--precision " + word + ": " + word + " is a weight-only format; give --precision bf16 --weights " + word);
    }
    if (const auto weights = arguments.value("weights")) {
        // The weight-only formats; every other format is a GEMM precision of its own.
        if (*weights == config::toString(config::Precision::Int4)) {
            shape.storedWeights = config::Precision::Int4;
        } else if (*weights == config::toString(config::Precision::Mxfp4)) {
            shape.storedWeights = config::Precision::Mxfp4;
        } else {
            throw UsageError(
                "--weights \"" + *weights + "\": expected int4 or mxfp4 (other formats: give --precision)");
        }
    }
    if (const std::string problem = compute::gemmShapeLimitProblem(shape); !problem.empty()) {
        throw UsageError("--m, --k, --n, --batch: " + problem);
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::GpuSpec gpu = loader.loadHardware(arguments.required("hardware"), arguments.values("set")).gpu;
    if (shape.storedWeights
        && !config::readsWeightOnlyFormat(shape.precision, *shape.storedWeights, gpu.architecture)) {
        const std::string weights = config::toString(*shape.storedWeights);
        throw UsageError("--weights " + weights + " with --precision " + config::toString(shape.precision)
            + ": weight-only formats are multiplied in 16 bits (mxfp4 also in fp8 on a Blackwell GPU; " + gpu.name
            + " is " + config::toString(gpu.architecture) + "); give --precision bf16 or fp16");
    }
    compute::GemmEstimate estimate;
    try {
        estimate = compute::estimateGemm(gpu, shape);
    } catch (const std::invalid_argument& error) {
        // A precision the GPU lacks, or a GPU too small for any tile: the input is wrong, not the program.
        invocation.err << "rapid gemm: " << error.what() << "\n";
        return InputError;
    }

    const compute::GemmTile& tile = estimate.tile;
    std::ostream& out = invocation.out;
    out << "GEMM " << shape.m << " x " << shape.k << " x " << shape.n;
    if (shape.batch > 1) {
        out << " (batch " << shape.batch << ")";
    }
    out << ", " << config::toString(shape.precision);
    if (shape.storedWeights) {
        out << " on " << config::toString(*shape.storedWeights) << " weights";
    }
    out << ", on " << gpu.name << "\n";
    out << "  tile                  " << tile.ctaM << " x " << tile.ctaN << " x " << tile.ctaK << ", " << tile.stages
        << " stages, " << tile.threads << " threads, " << tile.registersPerThread << " registers/thread, "
        << formatBytes(tile.sharedBytes) << " shared\n";
    out << "  CTAs                  " << estimate.ctaCount << "  (at most " << estimate.ctasPerSm
        << " resident per SM)\n";
    char waves[96];
    std::snprintf(waves, sizeof waves, "%.3f  (%lld full, the last %.1f%% full)", estimate.waves,
        static_cast<long long>(estimate.fullWaves), estimate.lastWaveFraction * 100);
    out << "  waves                 " << waves << "\n";
    out << "  work                  " << formatFlops(estimate.flops) << "\n";
    out << "  bytes                 HBM " << formatBytes(estimate.hbmBytes) << ", L2 " << formatBytes(estimate.l2Bytes)
        << ", shared " << formatBytes(estimate.sharedBytes) << "\n";
    out << "  compute               " << micros(estimate.computeSeconds) << "\n";
    out << "  HBM                   " << micros(estimate.hbmSeconds) << "\n";
    out << "  L2                    " << micros(estimate.l2Seconds) << "\n";
    out << "  shared memory         " << micros(estimate.sharedSeconds) << "\n";
    out << "  memory latency        " << micros(estimate.latencySeconds) << "  (" << tile.stages - 1
        << " K-slices in flight per CTA, mean load latency " << estimate.memoryLatency * 1e9 << " ns)\n";
    out << "  pipeline fill/drain   " << micros(estimate.pipelineSeconds) << "\n";
    out << "  launch                " << micros(estimate.launchSeconds) << "\n";
    out << "  total                 " << micros(estimate.totalSeconds) << "  (" << toString(estimate.bound)
        << " bound)\n";

    if (auto jsonPath = arguments.value("json")) {
        if (*jsonPath == "-") {
            writeJson(invocation.out, gpu, shape, estimate);
        } else {
            std::ofstream file(*jsonPath);
            if (!file) {
                invocation.err << "rapid gemm: cannot write " << *jsonPath << "\n";
                return InputError;
            }
            writeJson(file, gpu, shape, estimate);
        }
    }
    return Success;
}

} // namespace rapid::cli

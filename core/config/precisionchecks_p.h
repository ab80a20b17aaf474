// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The loader's checks of run.precision's block-scaled and weight-only formats (nvfp4, int4, mxfp4): which tensor
// families may be stored in them, which GEMM precision reads them, and that they serve inference. Each reports
// (key path, message) through @p report, as checkScenario collects them.

#include "hardwarespec.h"
#include "modelspec.h"
#include "runspec.h"
#include "weightonlymath.h"

#include <string>
#include <utility>

namespace rapid::config::detail {

/// Reports @p message at every tensor family other than the weights and the GEMMs (activations, gradients, optimizer
/// states, KV cache) stored in @p format, a format that exists for weights only.
template <typename Report>
void reportStoredIn(const RunSpec& run, Precision format, const std::string& message, const Report& report)
{
    const std::pair<const char*, Precision> others[] = { { "run.precision.activations", run.precision.activations },
        { "run.precision.gradients", run.precision.gradients }, { "run.precision.optimizer", run.precision.optimizer },
        { "run.precision.kv_cache", run.precision.kvCache } };
    for (const auto& [key, precision] : others) {
        if (precision == format) {
            report(key, message);
        }
    }
}

/// NVFP4 as inference engines run it (TensorRT-LLM, vLLM with NVFP4 checkpoints): the linear layers' weights stored
/// in NVFP4 and their GEMMs on the FP4 tensor cores with the activations quantised per block on the fly; activations,
/// the KV cache and everything a training step keeps stay in their own formats.
template <typename Report> void checkNvfp4(const RunSpec& run, const Report& report)
{
    reportStoredIn(run, Precision::Nvfp4,
        "nvfp4 is modelled for the weights and GEMMs of inference (precision.weights and precision.compute); "
        "expected fp32, bf16, fp16 or fp8 here",
        report);
    const bool compute = run.precision.compute == Precision::Nvfp4;
    const bool weights = run.precision.weights == Precision::Nvfp4;
    if (compute != weights) {
        report(compute ? "run.precision.weights" : "run.precision.compute",
            "nvfp4 GEMMs read nvfp4 weights (an NVFP4 checkpoint served W4A4); expected precision.compute and "
            "precision.weights both nvfp4, or neither");
    } else if (compute && run.mode == RunMode::Training) {
        report("run.precision.compute",
            "nvfp4 is modelled for inference (NVFP4 checkpoints served by TensorRT-LLM or vLLM), not for training; "
            "expected bf16, fp16 or fp8 compute for a training run");
    }
}

/// The routed experts' own format (precision.expert_weights): a weight-only format, or the same as the weights, and
/// only where the model has routed experts.
template <typename Report> void checkExpertWeights(const ModelSpec& model, const RunSpec& run, const Report& report)
{
    const auto& experts = run.precision.expertWeights;
    if (!experts) {
        return;
    }
    if (!isWeightOnlyFormat(*experts) && *experts != run.precision.weights) {
        report("run.precision.expert_weights",
            std::string("expected int4 or mxfp4 (the weight-only format a checkpoint keeps its routed experts in) or "
                        "the same as precision.weights (")
                + toString(run.precision.weights) + "), got " + toString(*experts));
    } else if (!model.moe) {
        report("run.precision.expert_weights",
            "the model " + model.name
                + " has no routed experts (no model.moe); remove expert_weights or pick a "
                  "mixture-of-experts model");
    }
}

/// The routed experts' own GEMM math (precision.expert_compute): bf16, fp16 or fp8 at a tensor rate the GPU has, for
/// the routed experts of an inference run. Returns whether it reported a problem (no second error follows from it).
template <typename Report>
bool checkExpertCompute(const ModelSpec& model, const RunSpec& run, const GpuSpec& gpu, const Report& report)
{
    const auto& experts = run.precision.expertCompute;
    if (!experts) {
        return false;
    }
    const char* key = "run.precision.expert_compute";
    if (*experts != Precision::Bf16 && *experts != Precision::Fp16 && *experts != Precision::Fp8) {
        report(key,
            std::string("expected bf16, fp16 or fp8 (the tensor-core math of the routed experts' GEMMs), got ")
                + toString(*experts));
    } else if (!model.moe) {
        report(key,
            "the model " + model.name
                + " has no routed experts (no model.moe); remove expert_compute or pick a mixture-of-experts model");
    } else if (run.mode == RunMode::Training) {
        report(key,
            "expert_compute is modelled for inference (an engine's MoE kernels apart from its other GEMMs), not for "
            "training; set precision.compute for a training run");
    } else if (gpu.tensorPeak(*experts) <= 0) {
        report(key,
            std::string("the GPU ") + gpu.name + " has no " + toString(*experts)
                + " tensor rate in its preset; expected a precision it has a rate for");
    } else {
        return false;
    }
    return true;
}

/// The weight-only formats: int4 as AWQ and GPTQ checkpoints hold the linear layers, mxfp4 as gpt-oss holds its
/// experts. The GEMMs that read them dequantise in registers and multiply in 16 bits (Marlin-class W4A16 kernels,
/// OpenAI's triton matmul_ogs on Hopper), for inference; MXFP4 experts under fp8 expert compute on Blackwell are
/// multiplied as they are (readsWeightOnlyFormat). Nothing else is stored in them and no GEMM computes in them.
template <typename Report>
void checkWeightOnlyFormats(const ModelSpec& model, const RunSpec& run, const GpuSpec& gpu, const Report& report)
{
    for (const Precision format : { Precision::Int4, Precision::Mxfp4 }) {
        const std::string word = toString(format);
        reportStoredIn(run, format,
            word
                + " is modelled for the weights of inference (precision.weights or precision.expert_weights); "
                  "expected fp32, bf16, fp16 or fp8 here",
            report);
        if (run.precision.compute == format) {
            report("run.precision.compute",
                word
                    + " is a weight-only format: W4A16 GEMMs dequantise the weights and multiply in bf16 or fp16; "
                      "expected compute bf16 or fp16 with precision.weights (or expert_weights): "
                    + word);
            return;
        }
    }
    checkExpertWeights(model, run, report);
    const bool expertMathReported = checkExpertCompute(model, run, gpu, report);
    const bool weights = isWeightOnlyFormat(run.precision.weights);
    // Without routed experts expert_weights was reported above and stores nothing; an expert math reported above is
    // not checked again against the experts' format: one error, not two.
    const bool experts = model.moe && run.precision.expertWeights && isWeightOnlyFormat(*run.precision.expertWeights)
        && !expertMathReported;
    if (!weights && !experts) {
        return;
    }
    const std::string key = weights ? "run.precision.weights" : "run.precision.expert_weights";
    const Precision format = weights ? run.precision.weights : *run.precision.expertWeights;
    const std::string word = toString(format);
    // The GEMMs that read the format: every linear's (weights) or the routed experts' (expert_weights).
    const Precision math = weights ? run.precision.compute : run.precision.routedExpertCompute();
    const char* mathKey
        = !weights && run.precision.expertCompute ? "run.precision.expert_compute" : "run.precision.compute";
    // Only the routed experts' MXFP4 meets fp8 math (all linears in MXFP4 is not a checkpoint TensorRT-LLM serves so).
    const bool readable = weights ? math == Precision::Bf16 || math == Precision::Fp16
                                  : readsWeightOnlyFormat(math, format, gpu.architecture);
    if (!readable) {
        std::string why = word + " weights are multiplied in 16 bits (W4A16)";
        if (format == Precision::Mxfp4 && math == Precision::Fp8) {
            why += weights ? " (only MXFP4 experts, precision.expert_weights, meet fp8 math, and on Blackwell)"
                           : std::string(" except by fp8 expert compute on Blackwell (MXFP8 x MXFP4), and ") + gpu.name
                    + " is " + toString(gpu.architecture);
        }
        report(mathKey,
            why + "; expected " + (mathKey == std::string("run.precision.compute") ? "compute" : "expert_compute")
                + " bf16 or fp16, got " + toString(math));
    } else if (run.mode == RunMode::Training) {
        report(key,
            word
                + " weights are modelled for inference (AWQ/GPTQ and MXFP4 checkpoints served by vLLM, SGLang or "
                  "TensorRT-LLM), not for training; expected bf16, fp16, fp8 or fp32 for a training run");
    }
}

} // namespace rapid::config::detail

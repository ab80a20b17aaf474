// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/config: the YAML word of every configuration enum, written once. The readers, toString() and the
// schema's choices (schema.h) all read these tables, so a new enum value is one line here.
#pragma once

#include "hardwarespec.h"
#include "modelspec.h"
#include "runspec.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rapid::config::detail {

template <typename Enum> using EnumWord = std::pair<const char*, Enum>;

/// The words of @p Enum in the order documents and the GUI list them.
template <typename Enum> std::span<const EnumWord<Enum>> enumWords();

#define RAPID_ENUM_WORDS(Enum, ...)                                                                                    \
    template <> inline std::span<const EnumWord<Enum>> enumWords<Enum>()                                               \
    {                                                                                                                  \
        static constexpr EnumWord<Enum> kWords[] = { __VA_ARGS__ };                                                    \
        return kWords;                                                                                                 \
    }

RAPID_ENUM_WORDS(Precision, { "fp32", Precision::Fp32 }, { "tf32", Precision::Tf32 }, { "bf16", Precision::Bf16 },
    { "fp16", Precision::Fp16 }, { "fp8", Precision::Fp8 }, { "int8", Precision::Int8 }, { "nvfp4", Precision::Nvfp4 },
    { "int4", Precision::Int4 }, { "mxfp4", Precision::Mxfp4 })
RAPID_ENUM_WORDS(NetworkKind, { "ring", NetworkKind::Ring }, { "fully-connected", NetworkKind::FullyConnected },
    { "switch", NetworkKind::Switch }, { "torus2d", NetworkKind::Torus2d }, { "torus3d", NetworkKind::Torus3d },
    { "mesh2d", NetworkKind::Mesh2d }, { "fat-tree", NetworkKind::FatTree },
    { "rail-optimized", NetworkKind::RailOptimized })
RAPID_ENUM_WORDS(Routing, { "auto", Routing::Auto }, { "static", Routing::Static }, { "ecmp", Routing::Ecmp },
    { "adaptive", Routing::Adaptive })
RAPID_ENUM_WORDS(Activation, { "gelu", Activation::Gelu }, { "silu", Activation::Silu }, { "relu", Activation::Relu },
    { "squared_relu", Activation::SquaredRelu })
RAPID_ENUM_WORDS(NormKind, { "layernorm", NormKind::LayerNorm }, { "rmsnorm", NormKind::RmsNorm })
RAPID_ENUM_WORDS(PositionEmbedding, { "rope", PositionEmbedding::Rope }, { "learned", PositionEmbedding::Learned },
    { "alibi", PositionEmbedding::Alibi }, { "none", PositionEmbedding::None })
RAPID_ENUM_WORDS(GpuArchitecture, { "other", GpuArchitecture::Other }, { "ampere", GpuArchitecture::Ampere },
    { "hopper", GpuArchitecture::Hopper }, { "blackwell", GpuArchitecture::Blackwell })
RAPID_ENUM_WORDS(AttentionKernel, { "auto", AttentionKernel::Auto }, { "fa2", AttentionKernel::Fa2 },
    { "fa3", AttentionKernel::Fa3 }, { "cudnn", AttentionKernel::Cudnn })
RAPID_ENUM_WORDS(RunMode, { "training", RunMode::Training }, { "inference", RunMode::Inference })
RAPID_ENUM_WORDS(Framework, { "megatron", Framework::Megatron }, { "nanotron", Framework::Nanotron },
    { "deepspeed", Framework::DeepSpeed }, { "pytorch-fsdp", Framework::PytorchFsdp }, { "vllm", Framework::Vllm })
RAPID_ENUM_WORDS(PipelineSchedule, { "gpipe", PipelineSchedule::Gpipe }, { "1f1b", PipelineSchedule::OneFOneB },
    { "interleaved", PipelineSchedule::Interleaved })
RAPID_ENUM_WORDS(Recompute, { "none", Recompute::None }, { "selective", Recompute::Selective },
    { "full", Recompute::Full }, { "op-sac", Recompute::OpSac })
RAPID_ENUM_WORDS(CollectiveImplementation, { "nccl", CollectiveImplementation::Nccl },
    { "custom", CollectiveImplementation::Custom })
RAPID_ENUM_WORDS(LoraTargets, { "projections", LoraTargets::Projections }, { "all_linear", LoraTargets::AllLinear })
RAPID_ENUM_WORDS(ExpertDispatcher, { "alltoall", ExpertDispatcher::AllToAll }, { "deepep", ExpertDispatcher::DeepEp })
RAPID_ENUM_WORDS(ExpertRoutingPattern, { "spread", ExpertRoutingPattern::Spread },
    { "consecutive", ExpertRoutingPattern::Consecutive })
RAPID_ENUM_WORDS(ContextComm, { "p2p", ContextComm::P2p }, { "all_gather", ContextComm::AllGather },
    { "a2a", ContextComm::AllToAll }, { "a2a+p2p", ContextComm::AllToAllP2p })
RAPID_ENUM_WORDS(Fp8Scaling, { "tensorwise", Fp8Scaling::Tensorwise }, { "rowwise", Fp8Scaling::Rowwise },
    { "blockwise", Fp8Scaling::Blockwise }, { "delayed", Fp8Scaling::Delayed }, { "block128", Fp8Scaling::Block128 },
    { "static", Fp8Scaling::Static })

#undef RAPID_ENUM_WORDS

/// The YAML word of @p value ("?" for a value outside the table, which a switch over the enum would also miss).
template <typename Enum> const char* enumWord(Enum value)
{
    for (const auto& [word, candidate] : enumWords<Enum>()) {
        if (candidate == value) {
            return word;
        }
    }
    return "?";
}

template <typename Enum> std::vector<std::string> enumWordList()
{
    std::vector<std::string> words;
    for (const auto& entry : enumWords<Enum>()) {
        words.emplace_back(entry.first);
    }
    return words;
}

} // namespace rapid::config::detail

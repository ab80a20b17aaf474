// SPDX-License-Identifier: GPL-3.0-or-later
#include "opsacrecompute_p.h"

#include "config/hardwarespec.h"

#include <string>
#include <utility>

namespace rapid::model {

namespace {

/// The linears torchtitan's Llama block calls one by one (torchtitan/models/llama3/model.py: wq, wk, wv, wo; w1, w3,
/// w2), in call order, as pieces of our fused GEMMs: the QKV projection is q (heads), k and v (KV heads); the gated
/// MLP's gate/up projection is w1 (gate) then w3 (up). Other GEMMs are one linear each.
std::vector<std::pair<std::string, GemmDims>> linearPieces(const Operator& gemm, std::int64_t kvWidth)
{
    const GemmDims& g = gemm.gemm;
    if (gemm.name == "attention.qkv_projection") {
        return { { "attention.q_projection", { g.m, g.k, g.n - 2 * kvWidth, g.batch } },
            { "attention.k_projection", { g.m, g.k, kvWidth, g.batch } },
            { "attention.v_projection", { g.m, g.k, kvWidth, g.batch } } };
    }
    const std::string fused = "gate_up_projection";
    if (gemm.name.ends_with(fused)) {
        const std::string prefix = gemm.name.substr(0, gemm.name.size() - fused.size());
        return { { prefix + "gate_projection", { g.m, g.k, g.n / 2, g.batch } },
            { prefix + "up_projection", { g.m, g.k, g.n - g.n / 2, g.batch } } };
    }
    return { { gemm.name, g } };
}

} // namespace

OpSacFloat8 opSacFloat8(
    bool torchaoFloat8, config::Precision compute, config::Fp8Scaling scaling, double activationBytes)
{
    OpSacFloat8 float8;
    if (!torchaoFloat8 || compute != config::Precision::Fp8) {
        return float8;
    }
    float8.scaledMm = true;
    if (scaling == config::Fp8Scaling::Tensorwise) {
        // The amax pass (reads the high-precision tensor) is kept; the scale-and-cast pass (reads it, writes one
        // FP8 byte) reruns: fp8quantization.h's 2 h + 1 bytes per element become h + 1.
        const double fp8Bytes = config::bytesPerElement(config::Precision::Fp8);
        float8.castShare = (activationBytes + fp8Bytes) / (2 * activationBytes + fp8Bytes);
    }
    return float8;
}

/// torchtitan's per-op selective activation checkpointing (`_apply_ac_to_transformer_block` with
/// selective_ac_option = "op", torchtitan/parallelisms/parallelize_llama.py at 004b3148, and
/// torchtitan/models/llama3/parallelize_llama.py in 2025): inside each checkpointed block the policy saves the output
/// of every op in `_save_list` (aten.mm, the SDPA flash/efficient attention kernels; at 004b3148 also the
/// reduce-scatter of sequence parallelism, in 2025 aten.max instead) "except every second mm", counting aten.mm calls
/// from the block's start;
/// every other op is PREFER_RECOMPUTE. The recompute pass therefore re-runs the 2nd, 4th, ... linear (for Llama:
/// wk, wo and w3) and every norm, rotary embedding, activation, product and residual add, but not the attention
/// core. Under tensor parallelism it also re-runs the collectives feeding those linears that the list does not keep
/// (all-gathers; reduce-scatters are kept): parallel::LayerCollectives::tensorFirstsBackward.
/// torchao's Float8Linear runs its forward GEMM as aten._scaled_mm, which the list does not name in any torchtitan
/// version the validation rows ran (9dec370a, 2024-12; 820504e2 and e7c0cae9, 2025-06; 6fc499f6, 2025-08; the list
/// became PyTorch's compute-intensive op set only in 2026-03, #2357): every FP8 linear is PREFER_RECOMPUTE, and it
/// does not advance the aten.mm count. torch.compile does not overrule that: AOTAutograd's partitioner recomputes
/// every node tagged MUST_RECOMPUTE or PREFER_RECOMPUTE (torch/_functorch/partitioners.py, must_recompute). Its
/// operands' casts rerun as well, but not the tensorwise amax, aten.max being on the list (rowwise scales come from
/// aten.amax, which is not): OpSacFloat8.
std::vector<Operator> opSacRecompute(const std::vector<Operator>& forward, const OpSacFloat8& float8)
{
    std::int64_t kvWidth = 0;
    for (const Operator& forwardOp : forward) {
        if (forwardOp.name == "attention.core") {
            kvWidth = forwardOp.attention.kvHeads * forwardOp.attention.headDimQk;
        }
    }
    std::vector<Operator> ops;
    int linears = 0;
    for (const Operator& forwardOp : forward) {
        if (forwardOp.kind != OperatorKind::Gemm) {
            // The SDPA op's output is kept: neither its kernels nor, under context parallelism, its ring merges rerun.
            if (!forwardOp.name.starts_with("attention.core")) {
                ops.push_back(forwardOp);
                ops.back().phase = Phase::Recompute;
                if (float8.scaledMm && forwardOp.name.ends_with(".fp8_cast")) {
                    ops.back().bytes *= float8.castShare;
                }
            }
            continue;
        }
        const bool scaledMm = float8.scaledMm && forwardOp.precision == config::Precision::Fp8;
        for (const auto& [name, dims] : linearPieces(forwardOp, kvWidth)) {
            if (!scaledMm && ++linears % 2 != 0) {
                continue; // saved
            }
            Operator op = forwardOp;
            op.name = name;
            op.phase = Phase::Recompute;
            op.gemm = dims;
            op.flops = 2.0 * static_cast<double>(dims.m) * static_cast<double>(dims.k) * static_cast<double>(dims.n)
                * static_cast<double>(dims.batch);
            ops.push_back(op);
        }
    }
    return ops;
}

} // namespace rapid::model

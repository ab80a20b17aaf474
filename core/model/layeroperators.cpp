// SPDX-License-Identifier: GPL-3.0-or-later
#include "layeroperators.h"

#include "attentionflops.h"
#include "eagerkernels.h"
#include "fp8quantization.h"
#include "gradientaccumulation.h"
#include "layerentry_p.h"
#include "layershape_p.h"
#include "loraentries_p.h"
#include "opsacrecompute_p.h"
#include "ringattention.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rapid::model {

using config::ModelSpec;
using config::RunSpec;
using detail::appendBackward;
using detail::ceilDiv;
using detail::Entry;
using detail::ExpertRows;
using detail::expertRows;
using detail::forwardOf;
using detail::kLayerNormFlops;
using detail::kRmsNormFlops;
using detail::makeShape;
using detail::Shape;

namespace {

/// Vector operations per element of the memory-bound operators (what a straightforward kernel executes).
constexpr double kRotaryFlops = 3; // two multiplies and an add per rotated element
constexpr double kSoftmaxFlops = 5; // max, subtract, exp, sum, divide

double activationFlops(config::Activation activation)
{
    switch (activation) {
    case config::Activation::Gelu:
        return 8; // tanh approximation: cube, fma, tanh, add, two multiplies
    case config::Activation::Silu:
        return 4; // exp, add, divide, multiply
    case config::Activation::Relu:
        return 1;
    case config::Activation::SquaredRelu:
        return 2;
    }
    return 1;
}

/// Builds one layer's forward entries; the public functions derive backward and recompute lists from them.
class LayerBuilder {
public:
    LayerBuilder(const ModelSpec& model, const Shape& shape, Workload workload, bool dropout)
        : m_model(model)
        , m_shape(shape)
        , m_training(workload == Workload::Training)
        , m_dropout(dropout)
    {
    }

    std::vector<Entry> build(bool moeLayer)
    {
        if (moeLayer && !m_model.moe) {
            throw std::invalid_argument(m_model.name + " has no MoE layers");
        }
        // The serving model sets the all-reduce fusion only for the architectures whose layers run it
        // (serving::engineScenario); a residual add folds into its RMSNorm only where the model has one.
        m_fusedAllReduce = m_shape.fusedAllReduceNorm;
        m_fusedResidual = !m_fusedAllReduce && m_shape.fusedResidualNorm && m_model.norm == config::NormKind::RmsNorm;
        attention();
        if (moeLayer) {
            moe();
        } else {
            if (ownNorm()) {
                norm("mlp.norm", OperatorClass::Mlp, m_model.hiddenSize, m_shape.normTokens);
            }
            mlp("mlp.", OperatorClass::Mlp, m_model.ffnSize);
        }
        residual("mlp.");
        return std::move(m_entries);
    }

private:
    double tokens() const { return static_cast<double>(m_shape.tokens); }
    double normTokens() const { return static_cast<double>(m_shape.normTokens); }
    std::int64_t shard(std::int64_t value) const { return ceilDiv(value, m_shape.tp); }

    Entry& add(std::string name, OperatorKind kind, OperatorClass opClass)
    {
        Entry entry;
        entry.op.name = std::move(name);
        entry.op.kind = kind;
        entry.op.opClass = opClass;
        entry.op.phase = Phase::Forward;
        entry.op.precision = m_shape.precision.activations;
        m_entries.push_back(std::move(entry));
        return m_entries.back();
    }

    /// @p inputCastShared: the FP8 cast of the input x is another GEMM's (linears reading the same x).
    void gemm(std::string name, OperatorClass opClass, std::int64_t m, std::int64_t k, std::int64_t n,
        std::int64_t batch = 1, bool inputCastShared = false)
    {
        Entry& entry = add(std::move(name), OperatorKind::Gemm, opClass);
        // The routed experts may have a format and math of their own (gpt-oss: MXFP4 experts; under TensorRT-LLM on
        // Blackwell multiplied with MXFP8 activations).
        const config::Precision math
            = m_routedExperts ? m_shape.precision.routedExpertCompute() : m_shape.precision.compute;
        const config::Precision stored
            = m_routedExperts ? m_shape.precision.routedExpertWeights() : m_shape.precision.weights;
        entry.op.precision = math;
        entry.op.gemm = { m, k, n, batch };
        entry.op.flops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n)
            * static_cast<double>(batch);
        entry.weights = static_cast<double>(k) * static_cast<double>(n) * static_cast<double>(batch);
        // AWQ/GPTQ checkpoints quantise the linear layers; the MoE router stays in 16 bits (vLLM builds it as an
        // unquantised ReplicatedLinear, quant_config=None, in its Mixtral and Qwen MoE models).
        if (config::isWeightOnlyFormat(stored) && entry.op.name != "moe.router") {
            entry.op.storedWeights = stored;
        }
        entry.op.tokenTiles = m_routedExperts && m_shape.fusedMoeRunner;
        // The runner's first GEMM casts the second's input in its epilogue: its output is already quantised.
        entry.op.quantisedOutput = entry.op.tokenTiles && !m_expertInputQuantised;
        // The runner's second GEMM reads that quantised input as it is: no cast of its own.
        if (quantisedByAllReduce(entry.op.name) || (entry.op.tokenTiles && m_expertInputQuantised)) {
            return;
        }
        if (math == config::Precision::Fp8 && m_shape.act > 1) {
            fp8Casts(entry.op.name, opClass, entry.op.gemm, inputCastShared, entry.op.storedWeights.has_value());
        } else if (math == config::Precision::Nvfp4) {
            const GemmDims dims = entry.op.gemm;
            Entry& quantize = add(entry.op.name + ".nvfp4_quantize", OperatorKind::Elementwise, opClass);
            quantize.op.bytes = nvfp4QuantizeBytes(dims, m_shape.act);
            constexpr double kFlopsPerQuantizedElement = 3; // abs, block max and scale
            quantize.op.flops = kFlopsPerQuantizedElement * static_cast<double>(dims.m) * static_cast<double>(dims.k)
                * static_cast<double>(dims.batch);
        }
    }

    /// The memory-bound kernels that quantise an FP8 GEMM's operands (fp8quantization.h).
    /// @p weightsQuantised: the weights are stored in a quantised format the tensor cores take as they are (MXFP4
    /// experts beside MXFP8 activations), so only the input is cast.
    void fp8Casts(const std::string& gemmName, OperatorClass opClass, const GemmDims& dims, bool inputCastShared,
        bool weightsQuantised)
    {
        // FSDP's float8 all-gather hands the GEMM its weight in FP8 already (the shard is cast before the gather).
        const bool weightsInFp8
            = weightsQuantised || m_shape.precision.weights == config::Precision::Fp8 || m_shape.precision.fp8AllGather;
        const Fp8CastBytes bytes = fp8CastBytes(dims, m_shape.precision.fp8Scaling, m_shape.act, weightsInFp8,
            m_training, m_shape.torchaoFloat8, inputCastShared);
        Entry& cast = add(gemmName + ".fp8_cast", OperatorKind::Elementwise, opClass);
        cast.op.bytes = bytes.forward;
        constexpr double kFlopsPerCastElement = 3; // abs, max and scale
        cast.op.flops = kFlopsPerCastElement * bytes.forwardElements;
        cast.backwardBytes = bytes.backward;
        cast.backwardFlops = kFlopsPerCastElement * bytes.backwardElements;
        cast.hasBackward = bytes.backward > 0;
        cast.backwardKernels += bytes.backwardLayoutCopies + bytes.backwardRescales;
    }

    /// An element-wise operator: forward reads and writes the given element counts; its backward moves
    /// @p backwardElements elements and does twice the work.
    void elementwise(std::string name, OperatorClass opClass, double readElements, double writtenElements,
        double backwardElements, double flops, OperatorKind kind = OperatorKind::Elementwise)
    {
        Entry& entry = add(std::move(name), kind, opClass);
        entry.op.bytes = (readElements + writtenElements) * m_shape.act;
        entry.op.flops = flops;
        entry.backwardBytes = backwardElements * m_shape.act;
        entry.backwardFlops = 2 * flops;
    }

    /// Norm over @p width elements of @p rows tokens: forward reads x and writes y; backward reads x and dy and writes
    /// dx. The weights are read once.
    void norm(std::string name, OperatorClass opClass, std::int64_t width, std::int64_t rows)
    {
        const bool layerNorm = m_model.norm == config::NormKind::LayerNorm;
        const double elements = static_cast<double>(rows) * static_cast<double>(width);
        const double weights = static_cast<double>(width) * (layerNorm ? 2 : 1);
        Entry& entry = add(std::move(name), OperatorKind::Norm, opClass);
        entry.op.bytes = 2 * elements * m_shape.act + weights * m_shape.weight;
        entry.op.flops = elements * (layerNorm ? kLayerNormFlops : kRmsNormFlops);
        entry.backwardBytes = 3 * elements * m_shape.act + weights * (m_shape.weight + m_shape.grad);
        entry.backwardFlops = 2 * entry.op.flops;
        entry.weights = weights;
        if (m_shape.eagerNorms && !layerNorm) {
            entry.runEager(eagerRmsNorm(m_shape.act), elements);
        }
    }

    /// Whether a sublayer's RMSNorm runs as a kernel of its own, rather than in the residual add's kernel before it
    /// (the all-reduce epilogue, or a fused add-and-norm).
    bool ownNorm() const { return !m_fusedAllReduce && !m_fusedResidual; }

    /// Whether @p gemmName's input arrives quantised from the all-reduce epilogue before it
    /// (RunSpec::allReduceWritesQuantisedInput): its cast kernel is then left out.
    bool quantisedByAllReduce(const std::string& gemmName) const
    {
        return m_fusedAllReduce && m_shape.fusedAllReduceQuantises
            && (gemmName == "attention.qkv_projection" || gemmName == "mlp.gate_up_projection");
    }

    /// The residual add and the next RMSNorm as one pass: it reads the residual and the norm's weights (unquantised,
    /// in the activations' precision, even in a quantised checkpoint), writes the new residual and the normalised
    /// output, @p outputBytes per element. After the MLP it stands for the next layer's input norm, which that layer
    /// then leaves out (the same shape).
    /// - In the tensor-parallel all-reduce's kernel (TensorRT-LLM's AllReduceFusionOp.RESIDUAL_RMS_NORM[_QUANT_FP8|
    ///   _QUANT_NVFP4]; @p inAllReduce): the sublayer's output arrives through the collective, no launch of its own;
    ///   under fusedAllReduceQuantises the output is written in the next GEMM's input format.
    /// - Else one kernel (vLLM's fused_add_rms_norm, FlashInfer's fused_add_rmsnorm) that also reads the sublayer's
    ///   output: 4 activations per element against the 5 of an add and a norm apart.
    void residualAndNorm(const std::string& prefix, bool inAllReduce)
    {
        const std::int64_t h = m_model.hiddenSize;
        const double elements = normTokens() * static_cast<double>(h);
        double outputBytes = m_shape.act;
        if (inAllReduce && m_shape.fusedAllReduceQuantises) {
            if (m_shape.precision.compute == config::Precision::Fp8) {
                outputBytes = 1;
            } else if (m_shape.precision.compute == config::Precision::Nvfp4) {
                outputBytes = 0.5 + 1.0 / 16; // two values per byte and an FP8 scale per 16
            }
        }
        const double sublayerOutputBytes = inAllReduce ? 0 : m_shape.act;
        Entry& entry = add(prefix + (inAllReduce ? "allreduce_residual_norm" : "residual_norm"), OperatorKind::Norm,
            prefix == "mlp." ? OperatorClass::Mlp : OperatorClass::Attention);
        entry.op.bytes
            = elements * (2 * m_shape.act + sublayerOutputBytes + outputBytes) + static_cast<double>(h) * m_shape.act;
        entry.op.flops = elements * (1 + kRmsNormFlops);
        entry.op.kernels = inAllReduce ? 0 : 1;
        entry.hasBackward = false;
        entry.weights = static_cast<double>(h);
    }

    void residual(const std::string& prefix)
    {
        if (m_fusedAllReduce || m_fusedResidual) {
            residualAndNorm(prefix, m_fusedAllReduce);
            return;
        }
        const double elements = normTokens() * static_cast<double>(m_model.hiddenSize);
        if (m_training && m_dropout) {
            // Dropout writes a one-byte mask besides its output; its backward reads the mask and the gradient.
            Entry& entry = add(prefix + "dropout", OperatorKind::Elementwise,
                prefix == "mlp." ? OperatorClass::Mlp : OperatorClass::Attention);
            entry.op.bytes = elements * (2 * m_shape.act + 1);
            entry.op.flops = 2 * elements;
            entry.backwardBytes = elements * (2 * m_shape.act + 1);
            entry.backwardFlops = elements;
        }
        elementwise(prefix + "residual_add", prefix == "mlp." ? OperatorClass::Mlp : OperatorClass::Attention,
            2 * elements, elements, 3 * elements, elements);
    }

    void rotary(double rotatedElements)
    {
        if (m_model.positionEmbedding != config::PositionEmbedding::Rope) {
            return;
        }
        elementwise("attention.rotary_embedding", OperatorClass::Attention, rotatedElements, rotatedElements,
            2 * rotatedElements, kRotaryFlops * rotatedElements);
        if (m_shape.eagerRotary) {
            m_entries.back().runEager(eagerRotary(m_shape.act), rotatedElements);
        }
    }

    void attentionCore(std::int64_t heads, std::int64_t kvHeads, std::int64_t dqk, std::int64_t dv, bool sharedKv)
    {
        AttentionDims dims;
        dims.batch = m_shape.batch;
        dims.heads = std::max<std::int64_t>(1, heads / m_shape.headSplit);
        dims.kvHeads = std::max<std::int64_t>(1, kvHeads / m_shape.headSplit);
        dims.queryLength = m_shape.attentionQueries;
        dims.keyLength = m_shape.keys;
        dims.headDimQk = dqk;
        dims.headDimV = dv;
        dims.causal = m_shape.causal;
        dims.sharedKv = sharedKv;
        dims.probabilityDropout = m_training && m_dropout;
        dims.window = m_model.slidingWindow;
        dims.windowedShare = m_model.windowedLayerShare();
        dims.splitKv = m_shape.splitKv;
        dims.splitCombineKernel = m_shape.splitCombineKernel;
        const OperatorKind kind = m_shape.decode
            ? OperatorKind::DecodeAttention
            : (m_shape.flash ? OperatorKind::FlashAttention : OperatorKind::NaiveAttention);
        Entry& entry = add("attention.core", kind, OperatorClass::Attention);
        // Attention runs at the activation precision, not the GEMMs' compute precision: Transformer Engine keeps
        // FlashAttention in BF16/FP16 under FP8 training unless FP8 attention is asked for (activations: fp8).
        entry.op.precision = m_shape.decode ? m_shape.precision.kvCache : m_shape.precision.activations;
        entry.op.attention = dims;
        entry.op.flops = attentionForwardFlops(dims);
        entry.backwardFlops = attentionBackwardFlops(dims, kind == OperatorKind::FlashAttention);
        if (m_shape.pytorchRing) {
            const double rows = static_cast<double>(m_shape.batch) * static_cast<double>(m_shape.queries);
            const RingAttentionBytes ring = pytorchRingAttentionBytes(rows * static_cast<double>(heads * dqk),
                rows * static_cast<double>(heads * dv),
                rows * static_cast<double>(kvHeads * (sharedKv ? dqk : dqk + dv)), m_shape.cp, m_shape.act);
            Entry& merge = add("attention.core.ring_merge", OperatorKind::Elementwise, OperatorClass::Attention);
            merge.op.bytes = ring.forward;
            merge.op.kernels = ring.forwardKernels;
            merge.backwardBytes = ring.backward;
            merge.backwardKernels = ring.backwardKernels;
        }
    }

    void kvCacheWrite(double elementsPerToken)
    {
        if (m_training) {
            return;
        }
        const double elements = tokens() * elementsPerToken;
        Entry& entry = add("attention.kv_cache_write", OperatorKind::Elementwise, OperatorClass::Attention);
        entry.op.precision = m_shape.precision.kvCache;
        entry.op.bytes = elements * (m_shape.act + m_shape.kv);
        entry.hasBackward = false;
    }

    /// Linears reading the same input x (m x k), one GEMM each when the model code has them separate: the QKV and
    /// gate/up projections of torchtitan and Hugging Face models. Their FP8 input casts are one when torch.compile
    /// traces them (AOTAutograd's common-subexpression pass merges identical casts of one tensor) or when torchao's
    /// Float8 tensor-parallel styles cast the module's input once (tensorwise scaling under tp); eager Float8Linears
    /// each cast their own. In the backward, autograd sums the linears' input gradients: eager one add per extra
    /// linear (reads two, writes one), compiled one fused kernel (reads each, writes the sum).
    void projections(const std::string& sumName, OperatorClass opClass, std::int64_t m, std::int64_t k,
        const std::vector<std::pair<std::string, std::int64_t>>& pieces)
    {
        if (m_training && pieces.size() > 1) {
            inputGradientSum(sumName, opClass, m, k, static_cast<int>(pieces.size()));
        }
        const bool castOnce = !m_shape.eager
            || (m_shape.torchaoFloat8 && m_shape.tp > 1
                && m_shape.precision.fp8Scaling == config::Fp8Scaling::Tensorwise);
        bool first = true;
        for (const auto& [name, n] : pieces) {
            gemm(name, opClass, m, k, n, 1, castOnce && !first);
            first = false;
        }
    }

    /// The backward-only sum of the gradients of an input that @p readers linears read (projections()).
    void inputGradientSum(std::string name, OperatorClass opClass, std::int64_t m, std::int64_t k, int readers)
    {
        const double elements = static_cast<double>(m) * static_cast<double>(k);
        const int adds = readers - 1;
        Entry& entry = add(std::move(name), OperatorKind::Elementwise, opClass);
        entry.hasForward = false;
        entry.op.bytes = 0;
        entry.op.flops = 0;
        entry.op.kernels = 0;
        entry.backwardFlops = adds * elements;
        entry.backwardKernels = m_shape.eager ? adds : 1;
        entry.backwardBytes = (m_shape.eager ? 3.0 * adds : readers + 1.0) * elements * m_shape.act;
    }

    void attention()
    {
        const std::int64_t h = m_model.hiddenSize;
        if (ownNorm()) {
            norm("attention.norm", OperatorClass::Attention, h, m_shape.normTokens);
        }
        const std::int64_t heads = shard(m_model.numHeads);
        const double t = tokens();
        if (m_model.mla) {
            mlaAttention(heads);
        } else {
            const std::int64_t kvHeads = shard(m_model.numKvHeads);
            const std::int64_t d = m_model.headDim;
            if (m_shape.separateProjections) {
                projections("attention.qkv_input_grad_sum", OperatorClass::Attention, m_shape.tokens, h,
                    { { "attention.q_projection", heads * d }, { "attention.k_projection", kvHeads * d },
                        { "attention.v_projection", kvHeads * d } });
            } else {
                gemm(
                    "attention.qkv_projection", OperatorClass::Attention, m_shape.tokens, h, (heads + 2 * kvHeads) * d);
            }
            rotary(t * static_cast<double>((heads + kvHeads) * d));
            kvCacheWrite(static_cast<double>(2 * kvHeads * d));
            attentionCore(heads, kvHeads, d, d, false);
            gemm("attention.output_projection", OperatorClass::Attention, m_shape.tokens, heads * d, h);
        }
        residual("attention.");
    }

    void mlaAttention(std::int64_t heads)
    {
        const config::MlaSpec& mla = *m_model.mla;
        const std::int64_t h = m_model.hiddenSize;
        const std::int64_t t = m_shape.tokens;
        const std::int64_t qkHead = mla.qkNopeHeadDim + mla.qkRopeHeadDim;
        if (mla.qLoraRank > 0) {
            gemm("attention.q_down_projection", OperatorClass::Attention, t, h, mla.qLoraRank);
            norm("attention.q_norm", OperatorClass::Attention, mla.qLoraRank, t);
            gemm("attention.q_up_projection", OperatorClass::Attention, t, mla.qLoraRank, heads * qkHead);
        } else {
            gemm("attention.q_projection", OperatorClass::Attention, t, h, heads * qkHead);
        }
        gemm("attention.kv_down_projection", OperatorClass::Attention, t, h, mla.kvLoraRank + mla.qkRopeHeadDim);
        norm("attention.kv_norm", OperatorClass::Attention, mla.kvLoraRank, t);
        // Rotary applies to each head's rope part of the query and to the one rope key shared by the heads.
        rotary(static_cast<double>(t) * static_cast<double>((heads + 1) * mla.qkRopeHeadDim));
        if (m_shape.decode) {
            kvCacheWrite(static_cast<double>(mla.kvLoraRank + mla.qkRopeHeadDim));
            gemm("attention.q_absorb", OperatorClass::Attention, t, mla.qkNopeHeadDim, mla.kvLoraRank, heads);
            attentionCore(heads, 1, mla.kvLoraRank + mla.qkRopeHeadDim, mla.kvLoraRank, true);
            gemm("attention.v_up_projection", OperatorClass::Attention, t, mla.kvLoraRank, mla.vHeadDim, heads);
        } else {
            gemm("attention.kv_up_projection", OperatorClass::Attention, t, mla.kvLoraRank,
                heads * (mla.qkNopeHeadDim + mla.vHeadDim));
            kvCacheWrite(static_cast<double>(mla.kvLoraRank + mla.qkRopeHeadDim));
            attentionCore(heads, heads, qkHead, mla.vHeadDim, false);
        }
        gemm("attention.output_projection", OperatorClass::Attention, t, heads * mla.vHeadDim, h);
    }

    /// Gate/up projection, activation and down projection of @p ffn intermediate width on @p rows tokens per
    /// @p batch (experts).
    void mlp(const std::string& prefix, OperatorClass opClass, std::int64_t ffn, std::int64_t rows = 0,
        std::int64_t batch = 1, std::int64_t ffnShards = 0)
    {
        const std::int64_t h = m_model.hiddenSize;
        const std::int64_t m = rows > 0 ? rows : m_shape.tokens;
        const std::int64_t f = ceilDiv(ffn, ffnShards > 0 ? ffnShards : m_shape.tp);
        const bool gated = m_model.ffnGated;
        if (gated && m_shape.separateProjections && batch == 1) {
            projections(prefix + "gate_up_input_grad_sum", opClass, m, h,
                { { prefix + "gate_projection", f }, { prefix + "up_projection", f } });
        } else {
            gemm(prefix + (gated ? "gate_up_projection" : "up_projection"), opClass, m, h, (gated ? 2 : 1) * f, batch);
        }
        const double out = static_cast<double>(m) * static_cast<double>(f) * static_cast<double>(batch);
        if (m_routedExperts && m_shape.fusedMoeRunner) {
            // The runner's first GEMM applies the activation (and quantises for the second) in its epilogue.
            m_expertInputQuantised = true;
            gemm(prefix + "down_projection", opClass, m, f, h, batch);
            m_expertInputQuantised = false;
            return;
        }
        // Gated: reads gate and up, writes their product; backward reads gate, up and dy and writes both gradients.
        elementwise(prefix + "activation", opClass, gated ? 2 * out : out, out, gated ? 5 * out : 3 * out,
            out * (activationFlops(m_model.activation) + (gated ? 1 : 0)));
        if (m_shape.eagerActivation && gated) {
            m_entries.back().runEager(eagerSwiGlu(m_shape.act), out);
        }
        gemm(prefix + "down_projection", opClass, m, f, h, batch);
    }

    void moe()
    {
        const config::MoeSpec& moe = *m_model.moe;
        const std::int64_t h = m_model.hiddenSize;
        if (ownNorm()) {
            norm("mlp.norm", OperatorClass::Moe, h, m_shape.normTokens);
        }
        gemm("moe.router", OperatorClass::Moe, m_shape.normTokens, h, moe.numExperts);
        // Router probabilities in fp32: softmax and top-k over the experts; backward reads y and dy, writes dx.
        const double logits = normTokens() * moe.numExperts;
        Entry& softmax = add("moe.router_softmax_topk", OperatorKind::Softmax, OperatorClass::Moe);
        softmax.op.precision = config::Precision::Fp32;
        softmax.op.bytes = 2 * logits * 4;
        softmax.op.flops = kSoftmaxFlops * logits;
        softmax.backwardBytes = 3 * logits * 4;
        softmax.backwardFlops = 2 * softmax.op.flops;

        const double hidden = static_cast<double>(h);
        // The tokens this GPU routes: its tensor-parallel group's (gathered with etp = tp), its own sequence-parallel
        // share when the experts are folded over the ranks (etp < tp), as Megatron-Core's dispatcher takes them
        // (with etp > 1 it then gathers the etp ranks' routed rows: expertRows counts them).
        const double own = m_shape.etp < m_shape.tp ? normTokens() : tokens();
        const double routed = own * moe.topK;
        // Dispatch gathers each token once per chosen expert (a MoE runner's first GEMM reads them in place through
        // the routing's index list); the combine weights the expert outputs back per token.
        if (!m_shape.fusedMoeRunner) {
            elementwise(
                "moe.permute", OperatorClass::Moe, routed * hidden, routed * hidden, (routed + own) * hidden, 0);
        }
        const ExpertRows experts = expertRows(m_shape, moe);
        const std::size_t first = m_entries.size();
        m_routedExperts = true;
        mlp("moe.expert_", OperatorClass::Moe, moe.expertFfnSize, experts.rowsPerExpert, experts.active, m_shape.etp);
        m_routedExperts = false;
        // The GPU holds all its local experts whether or not they run.
        for (std::size_t i = first; i < m_entries.size(); ++i) {
            if (m_entries[i].op.kind == OperatorKind::Gemm) {
                const GemmDims& g = m_entries[i].op.gemm;
                m_entries[i].weights
                    = static_cast<double>(g.k) * static_cast<double>(g.n) * static_cast<double>(experts.local);
                m_entries[i].routedExpert = true;
            }
        }
        elementwise("moe.unpermute", OperatorClass::Moe, routed * hidden, own * hidden, (routed + own) * hidden,
            2 * routed * hidden);
        if (moe.sharedExperts > 0) {
            mlp("moe.shared_expert_", OperatorClass::Moe, moe.expertFfnSize * moe.sharedExperts);
        }
    }

    const ModelSpec& m_model;
    Shape m_shape;
    bool m_training = false;
    bool m_dropout = false;
    bool m_fusedAllReduce = false; ///< this layer's all-reduces carry the residual and norm (and quantisation)
    bool m_fusedResidual = false; ///< each residual add runs in the next RMSNorm's kernel (residualAndNorm)
    bool m_routedExperts = false; ///< gemm() is building the routed experts' GEMMs (moe())
    bool m_expertInputQuantised = false; ///< ... the runner's second GEMM, whose input the first one quantised
    std::vector<Entry> m_entries;
};

std::vector<Entry> layerEntries(const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding,
    bool moeLayer, Workload workload, std::int64_t kvLength = 0)
{
    const Shape shape = makeShape(run, sharding, workload, kvLength);
    LayerBuilder builder(model, shape, workload, run.dropout);
    std::vector<Entry> entries = builder.build(moeLayer);
    if (workload == Workload::Training) {
        detail::addLoraAdapters(entries, run, shape);
    }
    return entries;
}

} // namespace

std::vector<Operator> trainingForward(
    const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding, bool moeLayer)
{
    return forwardOf(layerEntries(model, run, sharding, moeLayer, Workload::Training), Phase::Forward);
}

std::vector<Operator> trainingBackward(const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding,
    bool moeLayer, const GradientSum& gradientSum)
{
    const std::vector<Entry> entries = layerEntries(model, run, sharding, moeLayer, Workload::Training);
    std::vector<Operator> ops;
    if (run.recompute == config::Recompute::Full) {
        ops = forwardOf(entries, Phase::Recompute);
    } else if (run.recompute == config::Recompute::Selective) {
        for (const Entry& entry : entries) {
            if (entry.op.name == "attention.core") {
                ops.push_back(entry.op);
                ops.back().phase = Phase::Recompute;
            }
        }
    } else if (run.recompute == config::Recompute::OpSac) {
        ops = opSacRecompute(forwardOf(entries, Phase::Forward),
            opSacFloat8(detail::torchaoLinears(run), run.precision.compute, run.precision.fp8Scaling,
                config::bytesPerElement(run.precision.activations)));
    }
    appendBackward(entries, ops, fusedWeightGradientAccumulation(run));
    const double weights = detail::trainableWeights(entries);
    double expertWeights = 0;
    for (const Entry& entry : entries) {
        expertWeights += entry.routedExpert && !entry.frozen ? entry.weights : 0.0;
    }
    if (auto accumulation
        = gradientAccumulation(run, weights, expertWeights, gradientSum, entries.front().op.opClass)) {
        ops.push_back(*accumulation);
    }
    return ops;
}

std::vector<Operator> prefillLayer(
    const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding, bool moeLayer)
{
    return forwardOf(layerEntries(model, run, sharding, moeLayer, Workload::Prefill), Phase::Forward);
}

std::vector<Operator> decodeLayer(
    const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding, bool moeLayer, std::int64_t kvLength)
{
    return forwardOf(layerEntries(model, run, sharding, moeLayer, Workload::Decode, kvLength), Phase::Forward);
}

double localLayerTrainableParameters(
    const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding, bool moeLayer)
{
    if (run.mode != config::RunMode::Training) {
        return 0;
    }
    return detail::trainableWeights(layerEntries(model, run, sharding, moeLayer, Workload::Training));
}

double localLayerParameters(const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding, bool moeLayer)
{
    double parameters = 0;
    // Parameters do not depend on the tokens; the shapes are the run's own (training or prefill).
    const Workload workload = run.mode == config::RunMode::Training ? Workload::Training : Workload::Prefill;
    for (const Entry& entry : layerEntries(model, run, sharding, moeLayer, workload)) {
        parameters += entry.weights;
    }
    return parameters;
}

} // namespace rapid::model

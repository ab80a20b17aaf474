// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/fieldtables.h"

#include "editors/workspacedocument.h"

#include <QCoreApplication>

namespace rapid::widgets {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("rapid::widgets::FieldTables", text);
}

FieldSpec field(const char* keyPath, const QString& label, FieldKind kind, const QString& section,
    const QString& defaultValue = {}, int minimum = 0)
{
    FieldSpec spec;
    spec.keyPath = QString::fromLatin1(keyPath);
    spec.label = label;
    spec.kind = kind;
    spec.section = section;
    spec.defaultValue = defaultValue;
    spec.minimum = minimum;
    return spec;
}

FieldSpec choice(const char* keyPath, const QString& label, const QString& section, const QStringList& choices,
    const QString& defaultValue = {})
{
    FieldSpec spec = field(keyPath, label, FieldKind::Choice, section, defaultValue);
    spec.choices = choices;
    return spec;
}

QList<FieldSpec> modelFields()
{
    const QString shape = tr("Shape");
    const QString blocks = tr("Blocks");
    return {
        field("model.name", tr("Name"), FieldKind::Text, shape),
        field("model.num_layers", tr("Layers"), FieldKind::Int, shape, {}, 1),
        field("model.hidden_size", tr("Hidden size"), FieldKind::Int, shape, {}, 1),
        field("model.num_heads", tr("Attention heads"), FieldKind::Int, shape, {}, 1),
        field("model.num_kv_heads", tr("KV heads"), FieldKind::Int, shape, tr("= heads"), 1),
        field("model.ffn_size", tr("FFN size"), FieldKind::Int, shape, {}, 1),
        field("model.vocab_size", tr("Vocabulary"), FieldKind::Int, shape, {}, 1),
        field("model.max_context", tr("Max context"), FieldKind::Int, shape, {}, 1),
        field("model.ffn_gated", tr("Gated FFN"), FieldKind::Bool, blocks, QStringLiteral("false")),
        choice("model.activation", tr("Activation"), blocks,
            { QStringLiteral("gelu"), QStringLiteral("silu"), QStringLiteral("relu"), QStringLiteral("squared_relu") }),
        choice("model.norm", tr("Norm"), blocks, { QStringLiteral("layernorm"), QStringLiteral("rmsnorm") }),
        choice("model.position_embedding", tr("Positions"), blocks,
            { QStringLiteral("rope"), QStringLiteral("learned"), QStringLiteral("alibi"), QStringLiteral("none") },
            QStringLiteral("rope")),
        field("model.tied_embeddings", tr("Tied embeddings"), FieldKind::Bool, blocks, QStringLiteral("false")),
        field("model.linear_bias", tr("Linear biases"), FieldKind::Bool, blocks, QStringLiteral("false")),
    };
}

QList<FieldSpec> hardwareFields(const WorkspaceDocument& document)
{
    const QString gpu = tr("GPU");
    const QString cluster = tr("Cluster");
    QList<FieldSpec> fields = {
        field("hardware.name", tr("Name"), FieldKind::Text, cluster),
        field("hardware.cluster.gpus_per_node", tr("GPUs per node"), FieldKind::Int, cluster, {}, 1),
        field("hardware.gpu.name", tr("GPU"), FieldKind::Text, gpu),
        field("hardware.gpu.sm_count", tr("SMs"), FieldKind::Int, gpu, {}, 1),
        field("hardware.gpu.clock_GHz", tr("Clock (GHz)"), FieldKind::Quantity, gpu),
        field("hardware.gpu.tensor_TFLOPs.bf16", tr("BF16 (TFLOP/s)"), FieldKind::Quantity, gpu),
        field("hardware.gpu.tensor_TFLOPs.fp8", tr("FP8 (TFLOP/s)"), FieldKind::Quantity, gpu),
        field("hardware.gpu.vector_fp32_TFLOPs", tr("FP32 vector (TFLOP/s)"), FieldKind::Quantity, gpu),
        field("hardware.gpu.hbm.capacity_GiB", tr("HBM (GiB)"), FieldKind::Quantity, gpu),
        field("hardware.gpu.hbm.bandwidth_GBps", tr("HBM (GB/s)"), FieldKind::Quantity, gpu),
        field("hardware.gpu.l2.size_MiB", tr("L2 (MiB)"), FieldKind::Quantity, gpu),
        field("hardware.gpu.kernel_launch_us", tr("Launch (µs)"), FieldKind::Quantity, gpu),
    };
    // One group per network dimension present in the text; a dimension appears once it has a name or a size.
    for (int i = 0; i < 16; ++i) {
        const QString prefix = QStringLiteral("hardware.cluster.network[%1].").arg(i);
        const auto name = document.valueAt(prefix + QStringLiteral("name"));
        if (!name && !document.valueAt(prefix + QStringLiteral("size"))) {
            break;
        }
        const QString section = tr("Network: %1").arg(name.value_or(QString::number(i)));
        auto add = [&](const QString& key, const QString& label, FieldKind kind, int minimum) {
            FieldSpec spec;
            spec.keyPath = prefix + key;
            spec.label = label;
            spec.kind = kind;
            spec.section = section;
            spec.minimum = minimum;
            fields.append(spec);
        };
        add(QStringLiteral("size"), tr("Size"), FieldKind::Int, 2);
        add(QStringLiteral("link_bandwidth_GBps"), tr("Link (GB/s)"), FieldKind::Quantity, 0);
        add(QStringLiteral("latency_ns"), tr("Latency (ns)"), FieldKind::Quantity, 0);
    }
    return fields;
}

QList<FieldSpec> runFields()
{
    const QString general = tr("Run");
    const QString parallelism = tr("Parallelism");
    const QString training = tr("Training");
    const QString inference = tr("Inference");
    const QString precision = tr("Precision");
    const QStringList precisions = { QStringLiteral("fp32"), QStringLiteral("tf32"), QStringLiteral("bf16"),
        QStringLiteral("fp16"), QStringLiteral("fp8"), QStringLiteral("int8") };
    FieldSpec zero
        = field("run.parallelism.zero_stage", tr("ZeRO stage"), FieldKind::Int, parallelism, QStringLiteral("0"));
    zero.maximum = 3;
    return {
        field("run.name", tr("Name"), FieldKind::Text, general),
        choice("run.mode", tr("Mode"), general, { QStringLiteral("training"), QStringLiteral("inference") }),
        field("run.flash_attention", tr("Flash attention"), FieldKind::Bool, general, QStringLiteral("true")),
        field("run.parallelism.tp", tr("Tensor (tp)"), FieldKind::Int, parallelism, QStringLiteral("1"), 1),
        field("run.parallelism.sp", tr("Sequence parallel"), FieldKind::Bool, parallelism, QStringLiteral("false")),
        field("run.parallelism.pp", tr("Pipeline (pp)"), FieldKind::Int, parallelism, QStringLiteral("1"), 1),
        choice("run.parallelism.schedule", tr("Schedule"), parallelism,
            { QStringLiteral("gpipe"), QStringLiteral("1f1b"), QStringLiteral("interleaved") }, QStringLiteral("1f1b")),
        field("run.parallelism.virtual_stages", tr("Virtual stages"), FieldKind::Int, parallelism, QStringLiteral("1"),
            1),
        field("run.parallelism.dp", tr("Data (dp)"), FieldKind::Int, parallelism, QStringLiteral("1"), 1),
        field("run.parallelism.cp", tr("Context (cp)"), FieldKind::Int, parallelism, QStringLiteral("1"), 1),
        field("run.parallelism.ep", tr("Expert (ep)"), FieldKind::Int, parallelism, QStringLiteral("1"), 1),
        zero,
        field("run.training.global_batch", tr("Global batch"), FieldKind::Int, training, {}, 1),
        field("run.training.micro_batch", tr("Micro batch"), FieldKind::Int, training, QStringLiteral("1"), 1),
        field("run.training.seq_length", tr("Sequence length"), FieldKind::Int, training, {}, 1),
        choice("run.training.recompute", tr("Recompute"), training,
            { QStringLiteral("none"), QStringLiteral("selective"), QStringLiteral("full") }, QStringLiteral("none")),
        field("run.inference.batch", tr("Batch"), FieldKind::Int, inference, QStringLiteral("1"), 1),
        field("run.inference.prompt_length", tr("Prompt length"), FieldKind::Int, inference, {}, 1),
        field("run.inference.decode_length", tr("Decode length"), FieldKind::Int, inference, {}, 1),
        choice("run.precision.compute", tr("Compute"), precision, precisions, QStringLiteral("bf16")),
        choice("run.precision.weights", tr("Weights"), precision, precisions, QStringLiteral("bf16")),
        choice("run.precision.activations", tr("Activations"), precision, precisions, QStringLiteral("bf16")),
        choice("run.precision.gradients", tr("Gradients"), precision, precisions, QStringLiteral("bf16")),
        choice("run.precision.optimizer", tr("Optimizer"), precision, precisions, QStringLiteral("fp32")),
        choice("run.precision.kv_cache", tr("KV cache"), precision, precisions, QStringLiteral("bf16")),
        field("run.precision.master_weights", tr("Master weights"), FieldKind::Bool, precision, QStringLiteral("true")),
    };
}

} // namespace

QList<FieldSpec> fieldsFor(DocumentKind kind, const WorkspaceDocument& document)
{
    switch (kind) {
    case DocumentKind::Model:
        return modelFields();
    case DocumentKind::Hardware:
        return hardwareFields(document);
    case DocumentKind::Run:
        break;
    }
    return runFields();
}

} // namespace rapid::widgets

// SPDX-License-Identifier: GPL-3.0-or-later
// The forms' fields: which schema keys each form shows, under which label and heading. Everything else about a
// field (how it is edited, its range, choices, default and tooltip) comes from core/config's schema, the table the
// readers check documents against.
#include "editors/fieldtables.h"

#include "editors/workspacedocument.h"

#include "config/schema.h"

#include <QCoreApplication>

#include <algorithm>
#include <climits>

namespace rapid::widgets {

namespace {

using config::schema::Document;

QString tr(const char* text)
{
    return QCoreApplication::translate("rapid::widgets::FieldTables", text);
}

FieldKind kindOf(config::schema::Type type)
{
    switch (type) {
    case config::schema::Type::Integer:
        return FieldKind::Int;
    case config::schema::Type::Number:
        return FieldKind::Double;
    case config::schema::Type::Boolean:
        return FieldKind::Bool;
    case config::schema::Type::Choice:
        return FieldKind::Choice;
    case config::schema::Type::Quantity:
        return FieldKind::Quantity;
    default:
        return FieldKind::Text;
    }
}

/// The root of @p document's keys in a workspace ("hardware.gpu." for the GPU inside the hardware document).
QString rootOf(Document document)
{
    return QString::fromStdString(config::schema::scenarioPrefix(document));
}

/// What a field means, in the terms of the schema that configs/README.md also prints: its description, unit, range
/// and default, then the YAML key (for the YAML tab and `--set`).
QString toolTipOf(const config::schema::Key& key, const QString& keyPath)
{
    QStringList lines { QString::fromStdString(key.doc) };
    if (!key.unit.empty()) {
        lines.append(tr("Unit: %1 (other units can be typed with the value, e.g. \"3.35 TB/s\")")
                         .arg(QString::fromStdString(key.unit)));
    }
    if ((key.type == config::schema::Type::Integer || key.type == config::schema::Type::Number
            || key.type == config::schema::Type::Quantity)
        && key.maximum > key.minimum) {
        lines.append(tr("Range: %1 to %2").arg(key.minimum, 0, 'g', 6).arg(key.maximum, 0, 'g', 6));
    }
    if (!key.choices.empty()) {
        QStringList words;
        for (const std::string& choice : key.choices) {
            words.append(QString::fromStdString(choice));
        }
        lines.append(tr("One of: %1").arg(words.join(QStringLiteral(", "))));
    }
    lines.append(tr("Default: %1").arg(QString::fromStdString(key.defaultText())));
    lines.append(tr("YAML key: %1").arg(keyPath));
    return lines.join(QLatin1Char('\n'));
}

/// The field of schema key @p path; @p listIndex replaces the `[]` of a key inside list items.
FieldSpec field(Document document, const char* path, const QString& label, const QString& section, int listIndex = -1)
{
    const config::schema::Key& key = config::schema::at(document, path);
    FieldSpec spec;
    QString written = QString::fromStdString(key.writtenPath());
    if (listIndex >= 0) {
        written.replace(QStringLiteral("[]"), QStringLiteral("[%1]").arg(listIndex));
    }
    spec.keyPath = rootOf(document) + written;
    spec.label = label;
    spec.kind = kindOf(key.type);
    spec.section = section;
    for (const std::string& choice : key.choices) {
        spec.choices.append(QString::fromStdString(choice));
    }
    spec.defaultValue = QString::fromStdString(key.defaultValue.empty() ? key.defaultNote : key.defaultValue);
    if (key.type == config::schema::Type::Integer || key.type == config::schema::Type::Number) {
        spec.minimum = key.minimum;
        spec.maximum = std::min(key.maximum, double(INT_MAX));
    }
    spec.toolTip = toolTipOf(key, spec.keyPath);
    return spec;
}

QList<FieldSpec> modelFields()
{
    const QString shape = tr("Shape");
    const QString blocks = tr("Blocks");
    const Document model = Document::Model;
    return {
        field(model, "name", tr("Name"), shape),
        field(model, "num_layers", tr("Layers"), shape),
        field(model, "hidden_size", tr("Hidden size"), shape),
        field(model, "num_heads", tr("Attention heads"), shape),
        field(model, "num_kv_heads", tr("KV heads"), shape),
        field(model, "ffn_size", tr("FFN size"), shape),
        field(model, "vocab_size", tr("Vocabulary"), shape),
        field(model, "max_context", tr("Max context"), shape),
        field(model, "ffn_gated", tr("Gated FFN"), blocks),
        field(model, "activation", tr("Activation"), blocks),
        field(model, "norm", tr("Norm"), blocks),
        field(model, "position_embedding", tr("Positions"), blocks),
        field(model, "tied_embeddings", tr("Tied embeddings"), blocks),
        field(model, "linear_bias", tr("Linear biases"), blocks),
        field(model, "sliding_window", tr("Sliding window"), blocks),
        field(model, "full_attention_every", tr("Full attention every"), blocks),
    };
}

/// The GPU preset picker: choosing one writes `hardware.gpu: <preset>`, so the GPU takes every spec of the preset
/// (one undoable edit). Typing a name in the "GPU name" field only renames the GPU (issue #18: typing B200 there kept
/// the H100's specs). An inline GPU matches no preset and shows "custom".
FieldSpec gpuPresetField(const WorkspaceDocument& document, const QString& section)
{
    FieldSpec spec;
    spec.keyPath = QStringLiteral("hardware.gpu");
    spec.label = tr("GPU preset");
    spec.kind = FieldKind::Choice;
    spec.section = section;
    for (const std::string& name : document.library().names(config::PresetKind::Gpu)) {
        spec.choices.append(QString::fromStdString(name));
    }
    spec.defaultValue = tr("custom");
    spec.toolTip = tr("hardware.gpu\nA GPU preset (configs/gpus, each with its sources): choosing one replaces every "
                      "GPU spec below. \"custom\": the specs are written in this workspace.");
    return spec;
}

QList<FieldSpec> hardwareFields(const WorkspaceDocument& document)
{
    const QString gpuSection = tr("GPU");
    const QString cluster = tr("Cluster");
    const Document gpu = Document::Gpu;
    const Document hardware = Document::Hardware;
    QList<FieldSpec> fields = {
        field(hardware, "name", tr("Name"), cluster),
        field(hardware, "cluster.gpus_per_node", tr("GPUs per node"), cluster),
        gpuPresetField(document, gpuSection),
        field(gpu, "name", tr("GPU name"), gpuSection),
        field(gpu, "sm_count", tr("SMs"), gpuSection),
        field(gpu, "clock", tr("Clock (GHz)"), gpuSection),
        field(gpu, "tensor_TFLOPs.bf16", tr("BF16 (TFLOP/s)"), gpuSection),
        field(gpu, "tensor_TFLOPs.fp8", tr("FP8 (TFLOP/s)"), gpuSection),
        field(gpu, "vector_fp32", tr("FP32 vector (TFLOP/s)"), gpuSection),
        field(gpu, "hbm.capacity", tr("HBM (GiB)"), gpuSection),
        field(gpu, "hbm.bandwidth", tr("HBM (GB/s)"), gpuSection),
        field(gpu, "l2.size", tr("L2 (MiB)"), gpuSection),
        field(gpu, "kernel_launch", tr("Launch (µs)"), gpuSection),
    };
    // One group per network dimension present in the text; a dimension appears once it has a name or a size.
    for (int i = 0; i < 16; ++i) {
        const QString prefix = QStringLiteral("hardware.cluster.network[%1].").arg(i);
        const auto name = document.valueAt(prefix + QStringLiteral("name"));
        if (!name && !document.valueAt(prefix + QStringLiteral("size"))) {
            break;
        }
        const QString section = tr("Network: %1").arg(name.value_or(QString::number(i)));
        fields.append(field(hardware, "cluster.network[].size", tr("Size"), section, i));
        fields.append(field(hardware, "cluster.network[].link_bandwidth", tr("Link (GB/s)"), section, i));
        fields.append(field(hardware, "cluster.network[].latency", tr("Latency (ns)"), section, i));
    }
    return fields;
}

QList<FieldSpec> runGeneralAndParallelism()
{
    const QString general = tr("Run");
    const QString parallelism = tr("Parallelism");
    const Document run = Document::Run;
    return {
        field(run, "name", tr("Name"), general),
        field(run, "mode", tr("Mode"), general),
        field(run, "flash_attention", tr("Flash attention"), general),
        field(run, "attention_kernel", tr("Attention kernel"), general),
        field(run, "torch_compile", tr("torch.compile"), general),
        field(run, "transformer_engine", tr("Transformer Engine"), general),
        field(run, "liger_kernel", tr("Liger-Kernel"), general),
        field(run, "cross_entropy_fusion", tr("Fused cross-entropy"), general),
        field(run, "loss_fp32_upcast", tr("Loss in fp32"), general),
        field(run, "parallelism.tp", tr("Tensor (tp)"), parallelism),
        field(run, "parallelism.sp", tr("Sequence parallel"), parallelism),
        field(run, "parallelism.pp", tr("Pipeline (pp)"), parallelism),
        field(run, "parallelism.schedule", tr("Schedule"), parallelism),
        field(run, "parallelism.virtual_stages", tr("Virtual stages"), parallelism),
        field(run, "parallelism.dp", tr("Data (dp)"), parallelism),
        field(run, "parallelism.cp", tr("Context (cp)"), parallelism),
        field(run, "parallelism.cp_comm", tr("Context exchange"), parallelism),
        field(run, "parallelism.cp_a2a", tr("All-to-all group (cp_a2a)"), parallelism),
        field(run, "parallelism.ep", tr("Expert (ep)"), parallelism),
        field(run, "parallelism.etp", tr("Expert tensor (etp)"), parallelism),
        field(run, "parallelism.ep_imbalance", tr("Expert imbalance"), parallelism),
        field(run, "parallelism.ep_capacity_factor", tr("Capacity factor"), parallelism),
        field(run, "parallelism.ep_shared_expert_overlap", tr("Shared expert beside all-to-all"), parallelism),
        field(run, "parallelism.ep_a2a_overlap", tr("All-to-all beside another micro-batch"), parallelism),
        field(run, "parallelism.ep_delay_wgrad", tr("Delay expert weight gradients"), parallelism),
        field(run, "parallelism.ep_comm_sms", tr("Expert all-to-all SMs"), parallelism),
        field(run, "parallelism.collectives", tr("Collectives"), parallelism),
        field(run, "parallelism.zero_stage", tr("ZeRO stage"), parallelism),
        field(run, "parallelism.dp_shard", tr("Shard group (dp_shard)"), parallelism),
    };
}

QList<FieldSpec> runFields()
{
    const QString training = tr("Training");
    const QString inference = tr("Inference");
    const QString precision = tr("Precision");
    const Document run = Document::Run;
    QList<FieldSpec> fields = runGeneralAndParallelism();
    fields += {
        field(run, "training.global_batch", tr("Global batch"), training),
        field(run, "training.micro_batch", tr("Micro batch"), training),
        field(run, "training.seq_length", tr("Sequence length"), training),
        field(run, "training.recompute", tr("Recompute"), training),
        field(run, "training.lora_rank", tr("LoRA rank (0: full)"), training),
        field(run, "training.lora_targets", tr("LoRA targets"), training),
        field(run, "training.lora_dropout", tr("LoRA dropout"), training),
        field(run, "inference.batch", tr("Batch"), inference),
        field(run, "inference.prompt_length", tr("Prompt length"), inference),
        field(run, "inference.decode_length", tr("Decode length"), inference),
        field(run, "inference.split_kv", tr("Split keys (Flash-Decoding)"), inference),
        field(run, "precision.compute", tr("Compute"), precision),
        field(run, "precision.weights", tr("Weights"), precision),
        field(run, "precision.expert_weights", tr("Expert weights"), precision),
        field(run, "precision.expert_compute", tr("Expert compute"), precision),
        field(run, "precision.activations", tr("Activations"), precision),
        field(run, "precision.gradients", tr("Gradients"), precision),
        field(run, "precision.optimizer", tr("Optimizer"), precision),
        field(run, "precision.kv_cache", tr("KV cache"), precision),
        field(run, "precision.master_weights", tr("Master weights"), precision),
    };
    return fields;
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

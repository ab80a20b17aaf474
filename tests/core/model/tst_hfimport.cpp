// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face config.json import: the converted model has the parameter count of the published model, and bad
// files give located errors. The JSON fixtures hold the fields of the public config.json files they are named after.
#include "config/hfimport.h"
#include "model/modelstats.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {
const char* const kLlama31_8b = R"({
  "architectures": ["LlamaForCausalLM"],
  "hidden_act": "silu",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "tie_word_embeddings": false,
  "vocab_size": 128256
})";

const char* const kQwen2_7b = R"({
  "architectures": ["Qwen2ForCausalLM"],
  "hidden_act": "silu",
  "hidden_size": 3584,
  "intermediate_size": 18944,
  "max_position_embeddings": 131072,
  "model_type": "qwen2",
  "num_attention_heads": 28,
  "num_hidden_layers": 28,
  "num_key_value_heads": 4,
  "tie_word_embeddings": false,
  "vocab_size": 152064
})";

const char* const kMixtral = R"({
  "architectures": ["MixtralForCausalLM"], "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
  "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32, "num_experts_per_tok": 2,
  "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8, "tie_word_embeddings": false,
  "vocab_size": 32000
})";

const char* const kDeepSeekV3 = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "first_k_dense_replace": 3, "hidden_act": "silu", "hidden_size": 7168,
  "intermediate_size": 18432, "kv_lora_rank": 512, "max_position_embeddings": 163840, "model_type": "deepseek_v3",
  "moe_intermediate_size": 2048, "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1,
  "num_attention_heads": 128, "topk_group": 4, "topk_method": "noaux_tc",
  "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128, "q_lora_rank": 1536,
  "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "tie_word_embeddings": false, "v_head_dim": 128,
  "vocab_size": 129280
})";
} // namespace

class TstHfImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void importsFamilies_data();
    void importsFamilies();
    void exportedYamlLoadsBack();
    void reportsBadFiles_data();
    void reportsBadFiles();
};

void TstHfImport::importsFamilies_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("preset"); // a preset of the same model, or empty
    QTest::addColumn<qint64>("expectedTotal");
    QTest::addRow("llama_3_1_8b") << QString::fromLatin1(kLlama31_8b) << "llama-3.1-8b" << qint64(0);
    QTest::addRow("mixtral_8x7b") << QString::fromLatin1(kMixtral) << "mixtral-8x7b" << qint64(0);
    QTest::addRow("deepseek_v3") << QString::fromLatin1(kDeepSeekV3) << "deepseek-v3" << qint64(0);
    // Qwen2-7B by hand: per layer Q 3584^2 + K,V 3584*512*2 + O 3584^2 + QKV bias (3584 + 2*512) = 29,364,736;
    // MLP 3*3584*18944 = 203,685,888; norms 7,168: 233,057,792 x 28 = 6,525,618,176; embeddings and LM head
    // 2*152064*3584 = 1,089,994,752; final norm 3,584. Total 7,615,616,512 (the published 7.62B).
    QTest::addRow("qwen2_7b") << QString::fromLatin1(kQwen2_7b) << "" << qint64(7615616512);
}

void TstHfImport::importsFamilies()
{
    QFETCH(QString, json);
    QFETCH(QString, preset);
    QFETCH(qint64, expectedTotal);
    QTemporaryDir dir;
    const config::ModelSpec imported
        = config::importHuggingFaceConfig(test::writeFile(dir, "config.json", json.toStdString()));
    const std::int64_t total = model::countParameters(imported).total();
    if (!preset.isEmpty()) {
        const config::ModelSpec reference = test::projectLoader().loadModel(preset.toStdString());
        QCOMPARE(total, model::countParameters(reference).total());
        QCOMPARE(model::countParameters(imported).activePerToken(), model::countParameters(reference).activePerToken());
        // The preset names the architecture its config.json does (architectures[0]), which the import copies.
        QCOMPARE(imported.architecture, reference.architecture);
        QVERIFY(!imported.architecture.empty());
    } else {
        QCOMPARE(qint64(total), expectedTotal);
    }
}

void TstHfImport::exportedYamlLoadsBack()
{
    QTemporaryDir dir;
    const config::ModelSpec imported
        = config::importHuggingFaceConfig(test::writeFile(dir, "config.json", kDeepSeekV3));
    const std::string yaml = test::writeFile(dir, "model.yaml", config::modelToYaml(imported, "test"));
    QVERIFY(test::projectLoader().loadModel(yaml) == imported);
    QCOMPARE(imported.architecture, std::string("DeepseekV3ForCausalLM")); // config.json architectures[0]
    // Group-limited routing comes along (config.json n_group 8, topk_group 4) and matches the preset.
    QCOMPARE(imported.moe->expertGroups, 8);
    QCOMPARE(imported.moe->groupsPerToken, 4);
    QVERIFY(test::projectLoader().loadModel("deepseek-v3").moe == imported.moe);
}

void TstHfImport::reportsBadFiles_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("expectedText");
    QTest::addRow("malformed_json") << "{\n  \"hidden_size\": 4096,\n  \"model_type\": [llama\n}" << 4
                                    << "malformed JSON";
    QTest::addRow("unsupported_architecture") << "{\n  \"model_type\": \"gpt2\"\n}" << 2 << "unsupported model_type";
    QTest::addRow("missing_field") << "{\"model_type\": \"llama\", \"hidden_size\": 8, \"num_attention_heads\": 2,\n"
                                      " \"intermediate_size\": 8, \"vocab_size\": 8, \"max_position_embeddings\": 8}"
                                   << 1 << "\"num_hidden_layers\" is missing";
    QTest::addRow("wrong_type") << "{\"model_type\": \"llama\", \"num_hidden_layers\": \"many\", \"hidden_size\": 8,\n"
                                   " \"num_attention_heads\": 2, \"intermediate_size\": 8, \"vocab_size\": 8,\n"
                                   " \"max_position_embeddings\": 8}"
                                << 1 << "expected a non-negative whole number";
}

void TstHfImport::reportsBadFiles()
{
    QFETCH(QString, json);
    QFETCH(int, line);
    QFETCH(QString, expectedText);
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "config.json", json.toStdString());
    const auto diagnostics = test::expectConfigError([&] { config::importHuggingFaceConfig(path); });
    QVERIFY(!diagnostics.empty());
    QCOMPARE(QString::fromStdString(diagnostics.front().location.source), QString::fromStdString(path));
    QCOMPARE(diagnostics.front().location.line, line);
    QVERIFY2(QString::fromStdString(diagnostics.front().message).contains(expectedText),
        diagnostics.front().message.c_str());
}

QTEST_GUILESS_MAIN(TstHfImport)
#include "tst_hfimport.moc"

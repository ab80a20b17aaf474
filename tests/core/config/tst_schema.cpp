// SPDX-License-Identifier: GPL-3.0-or-later
// The configuration schema is the readers' own table: configs/README.md shows it unchanged, every key it declares is
// accepted where it says, every choice it lists is read, and its defaults are what a document without the key gets.
#include "config/schema.h"
#include "testutils.h"

#include <QTest>

#include <fstream>
#include <sstream>

using namespace rapid;
using config::schema::Document;
using config::schema::Key;
using config::schema::Type;

namespace {

/// The messages a load with @p overrides reports (empty when it loads).
std::vector<std::string> problems(Document document, const std::vector<std::string>& overrides)
{
    const config::ConfigLoader loader = test::projectLoader();
    try {
        switch (document) {
        case Document::Model:
            loader.loadModel("llama-3.1-70b", overrides);
            break;
        case Document::Gpu:
        case Document::Hardware:
            loader.loadHardware("dgx-h100-superpod", overrides);
            break;
        case Document::Run:
            loader.loadRun("llama-3.1-70b-train-64", overrides);
            break;
        }
    } catch (const config::ConfigError& error) {
        std::vector<std::string> messages;
        for (const config::Diagnostic& diagnostic : error.diagnostics()) {
            messages.push_back(diagnostic.toString());
        }
        return messages;
    }
    return {};
}

std::string rootOf(Document document)
{
    return document == Document::Gpu ? "hardware.gpu." : std::string(config::schema::toString(document)) + ".";
}

/// A value of the key's type that its reader can take (range and cross-key checks may still complain).
std::string sampleValue(const Key& key)
{
    switch (key.type) {
    case Type::Integer:
    case Type::Number:
        return key.defaultValue.empty() ? QByteArray::number(key.minimum).toStdString() : key.defaultValue;
    case Type::Boolean:
        return "false";
    case Type::Choice:
        return key.choices.front();
    case Type::Quantity:
        return "1"; // a number under the key's unit suffix
    case Type::Mapping:
        return "{}";
    case Type::List:
        return "[]";
    case Type::Text:
        break;
    }
    return "x";
}

/// `--set` for @p key: a key inside list items sets the whole list to one item holding it.
std::string assignment(Document document, const Key& key, const std::string& value)
{
    const std::string written = key.writtenPath();
    const size_t items = written.find("[].");
    if (items == std::string::npos) {
        return rootOf(document) + written + "=" + value;
    }
    // A key of a mapping inside the item (faults[].nic.node) nests: [{nic: {node: value}}].
    std::string inner = written.substr(items + 3);
    std::string item = value;
    for (size_t dot = inner.rfind('.'); dot != std::string::npos; dot = inner.rfind('.')) {
        item = "{" + inner.substr(dot + 1) + ": " + item + "}";
        inner.resize(dot);
    }
    return rootOf(document) + written.substr(0, items) + "=[{" + inner + ": " + item + "}]";
}

bool mentionsUnknownKey(const std::vector<std::string>& messages)
{
    for (const std::string& message : messages) {
        if (message.find("unknown key") != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string joined(const std::vector<std::string>& messages)
{
    std::string text;
    for (const std::string& message : messages) {
        text += message + "\n";
    }
    return text;
}

} // namespace

class TstSchema : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void configsReadmeShowsTheSchema();
    void everyDeclaredKeyIsAccepted();
    void everyChoiceIsRead();
    void quantitiesAcceptTheirDocumentedSuffix();
    void defaultsAreWhatAnAbsentKeyGets();
    void keysAreUniqueAndParentsComeFirst();
};

void TstSchema::configsReadmeShowsTheSchema()
{
    const std::string path = std::string(RAPID_SOURCE_CONFIG_DIR) + "/README.md";
    std::ifstream in(path);
    QVERIFY2(in.good(), path.c_str());
    std::stringstream text;
    text << in.rdbuf();
    int sections = 0;
    const std::string expected = config::schema::withSchemaTables(text.str(), &sections);
    QCOMPARE(sections, static_cast<int>(config::schema::documents().size()));
    QVERIFY2(expected == text.str(),
        "configs/README.md's key tables differ from the schema; run `cmake --build <dir> --target update-config-docs`");
}

void TstSchema::everyDeclaredKeyIsAccepted()
{
    int checked = 0;
    for (Document document : config::schema::documents()) {
        for (const Key& key : config::schema::keys(document)) {
            const std::string set = assignment(document, key, sampleValue(key));
            const std::vector<std::string> messages = problems(document, { set });
            QVERIFY2(!mentionsUnknownKey(messages), (set + "\n" + joined(messages)).c_str());
            ++checked;
        }
    }
    QVERIFY(checked > 100);
}

void TstSchema::everyChoiceIsRead()
{
    for (Document document : config::schema::documents()) {
        for (const Key& key : config::schema::keys(document)) {
            for (const std::string& choice : key.choices) {
                const std::string set = assignment(document, key, choice);
                for (const std::string& message : problems(document, { set })) {
                    // A list item set alone misses its required keys (a network item's kind lists its choices).
                    if (message.find("required key") != std::string::npos) {
                        continue;
                    }
                    QVERIFY2(message.find("expected one of") == std::string::npos, (set + ": " + message).c_str());
                }
            }
        }
    }
}

void TstSchema::quantitiesAcceptTheirDocumentedSuffix()
{
    // 1 GBps on the H100's HBM: read back as 1e9 B/s, so the suffix in the table is one the reader converts.
    const config::HardwareSpec hardware = test::projectLoader().loadHardware("dgx-h100-superpod",
        { "hardware.gpu." + config::schema::at(Document::Gpu, "hbm.bandwidth").writtenPath() + "=1" });
    QCOMPARE(hardware.gpu.hbmBandwidth, 1e9);
}

void TstSchema::defaultsAreWhatAnAbsentKeyGets()
{
    // The decode preset gives no ep, zero_stage or schedule: it gets the schema's defaults.
    const config::RunSpec run = test::projectLoader().loadRun("llama-3.1-8b-decode-1gpu");
    QCOMPARE(std::to_string(run.parallelism.ep), config::schema::at(Document::Run, "parallelism.ep").defaultValue);
    QCOMPARE(std::to_string(run.parallelism.zeroStage),
        config::schema::at(Document::Run, "parallelism.zero_stage").defaultValue);
    QCOMPARE(std::string(config::toString(run.parallelism.schedule)),
        config::schema::at(Document::Run, "parallelism.schedule").defaultValue);
    const config::HardwareSpec hardware = test::projectLoader().loadHardware("hgx-a100-8gpu");
    QCOMPARE(QByteArray::number(hardware.gpu.registersPerSm).toStdString(),
        config::schema::at(Document::Gpu, "registers_per_sm").defaultValue);
}

void TstSchema::keysAreUniqueAndParentsComeFirst()
{
    for (Document document : config::schema::documents()) {
        std::vector<std::string> seen;
        for (const Key& key : config::schema::keys(document)) {
            QVERIFY2(std::find(seen.begin(), seen.end(), key.path) == seen.end(), key.path.c_str());
            QVERIFY2(!key.doc.empty(), key.path.c_str());
            const size_t dot = key.path.rfind('.');
            if (dot != std::string::npos) {
                std::string parent = key.path.substr(0, dot);
                if (parent.size() > 2 && parent.compare(parent.size() - 2, 2, "[]") == 0) {
                    parent.resize(parent.size() - 2);
                }
                QVERIFY2(std::find(seen.begin(), seen.end(), parent) != seen.end(), key.path.c_str());
            }
            seen.push_back(key.path);
        }
    }
}

QTEST_GUILESS_MAIN(TstSchema)
#include "tst_schema.moc"

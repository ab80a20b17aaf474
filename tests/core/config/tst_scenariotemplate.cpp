// SPDX-License-Identifier: GPL-3.0-or-later
// ScenarioTemplate (the sweep's loader) gives what ConfigLoader::loadTexts gives for the same documents and
// overrides: run-only overrides (the fast path), overrides of other documents (the full path), and the same
// diagnostics, with the same locations, for a rejected value or a broken document.
#include "config/workspacefile.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

class TstScenarioTemplate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameAsLoadTexts_data();
    void sameAsLoadTexts();
    void brokenDocumentReportedAsLoadTextsDoes();
};

namespace {

std::vector<std::string> messages(const config::ConfigError& error)
{
    std::vector<std::string> result;
    for (const config::Diagnostic& diagnostic : error.diagnostics()) {
        result.push_back(diagnostic.toString());
    }
    return result;
}

} // namespace

void TstScenarioTemplate::sameAsLoadTexts_data()
{
    QTest::addColumn<QStringList>("overrides");
    QTest::newRow("none") << QStringList {};
    QTest::newRow("run only") << QStringList { QStringLiteral("run.parallelism.tp=4"),
        QStringLiteral("run.parallelism.dp=16") };
    QTest::newRow("hardware") << QStringList { QStringLiteral("hardware.gpu.hbm.bandwidth_GBps=2000") };
    QTest::newRow("model") << QStringList { QStringLiteral("model.num_layers=40") };
    QTest::newRow("invalid run value") << QStringList { QStringLiteral("run.parallelism.tp=3") };
    QTest::newRow("unknown run key") << QStringList { QStringLiteral("run.parallelism.tq=2") };
    QTest::newRow("cross-document check")
        << QStringList { QStringLiteral("run.parallelism.tp=16"), QStringLiteral("run.parallelism.dp=4") };
}

void TstScenarioTemplate::sameAsLoadTexts()
{
    QFETCH(QStringList, overrides);
    std::vector<std::string> point;
    for (const QString& assignment : overrides) {
        point.push_back(assignment.toStdString());
    }
    const config::ConfigLoader loader = test::projectLoader();
    const config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", loader.library());
    const std::vector<std::string> base = { "run.training.global_batch=64" };
    const config::ScenarioTemplate scenarioTemplate(loader, documents.model, documents.hardware, documents.run, base);
    std::vector<std::string> all = base;
    all.insert(all.end(), point.begin(), point.end());

    std::optional<config::Scenario> expected;
    std::vector<std::string> expectedErrors;
    try {
        expected = loader.loadTexts(documents.model, documents.hardware, documents.run, all);
    } catch (const config::ConfigError& error) {
        expectedErrors = messages(error);
    }
    for (int round = 0; round < 2; ++round) { // the second load reuses what the first read
        try {
            const config::Scenario scenario = scenarioTemplate.load(point);
            QVERIFY2(expected.has_value(), "the template accepted what loadTexts rejects");
            QCOMPARE(scenario.model, expected->model);
            QCOMPARE(scenario.hardware, expected->hardware);
            QCOMPARE(scenario.run, expected->run);
            for (const char* key : { "run.parallelism.tp", "model.num_layers", "hardware.gpu.hbm" }) {
                QCOMPARE(scenario.locations.locate(key), expected->locations.locate(key));
            }
        } catch (const config::ConfigError& error) {
            QVERIFY2(!expected.has_value(), error.what());
            QCOMPARE(messages(error), expectedErrors);
        }
    }
}

void TstScenarioTemplate::brokenDocumentReportedAsLoadTextsDoes()
{
    const config::ConfigLoader loader = test::projectLoader();
    config::WorkspaceDocuments documents = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", loader.library());
    documents.model.text += "  bogus_key: 1\n";
    const config::ScenarioTemplate scenarioTemplate(loader, documents.model, documents.hardware, documents.run);
    const std::vector<std::string> point = { "run.parallelism.tp=4", "run.parallelism.dp=16" };
    const auto expected = test::expectConfigError(
        [&] { return loader.loadTexts(documents.model, documents.hardware, documents.run, point); });
    const auto actual = test::expectConfigError([&] { return scenarioTemplate.load(point); });
    QCOMPARE(actual, expected);
    QVERIFY(!actual.empty());
}

QTEST_GUILESS_MAIN(TstScenarioTemplate)
#include "tst_scenariotemplate.moc"

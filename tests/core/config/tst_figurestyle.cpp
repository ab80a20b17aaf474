// SPDX-License-Identifier: GPL-3.0-or-later
// A figure style file (and a workspace's figure_style: section) reads into the style it says, composes back into
// text that reads into the same style, and every mistake names the file, line and key path with what is expected.
#include "config/figurestyle.h"
#include "config/workspacefile.h"
#include "testutils.h"

#include <QRandomGenerator>
#include <QTest>

using namespace rapid;

namespace {

QString qs(const std::string& text)
{
    return QString::fromStdString(text);
}

/// The one problem reading @p text reports: its key path, line and message.
config::Diagnostic oneProblem(const std::string& text)
{
    const auto diagnostics = test::expectConfigError([&] { config::readFigureStyle(text, "style.yaml"); });
    if (diagnostics.size() != 1) {
        qWarning("expected one problem, got %zu", diagnostics.size());
        return {};
    }
    return diagnostics.front();
}

} // namespace

class TstFigureStyle : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsEveryKey();
    void defaultsWhenKeysAreLeftOut();
    void composedTextReadsBack();
    void mistakesAreLocated_data();
    void mistakesAreLocated();
    void workspaceKeepsItsStyle();
    void loaderAcceptsAWorkspaceWithAStyle();
    void damagedWorkspaceStyleIsReportedByPlace();
};

void TstFigureStyle::readsEveryKey()
{
    const config::FigureStyle style = config::readFigureStyle("figure_style:\n"
                                                              "  width_in: 7\n"
                                                              "  height_in: 2.5\n"
                                                              "  dpi: 600\n"
                                                              "  font_family: \"Liberation Serif\"\n"
                                                              "  font_size_pt: 9.5\n"
                                                              "  title: true\n"
                                                              "  legend: right\n"
                                                              "  palette: tol-muted\n"
                                                              "  series_names:\n"
                                                              "    \"TP comm.\": Tensor parallel\n"
                                                              "    MLP: \"Feed-forward: SwiGLU\"\n"
                                                              "  value_min: 0\n"
                                                              "  value_max: 120\n"
                                                              "  value_label: Step time (s)\n",
        "style.yaml");
    QCOMPARE(style.widthInches, 7.0);
    QCOMPARE(style.heightInches, 2.5);
    QCOMPARE(style.height(), 2.5);
    QCOMPARE(style.dpi, 600);
    QCOMPARE(qs(style.fontFamily), QStringLiteral("Liberation Serif"));
    QCOMPARE(style.fontSizePt, 9.5);
    QVERIFY(style.title);
    QCOMPARE(style.legend, config::LegendPlacement::Right);
    QCOMPARE(style.palette, config::FigurePalette::TolMuted);
    QCOMPARE(qs(style.displayName("TP comm.")), QStringLiteral("Tensor parallel"));
    QCOMPARE(qs(style.displayName("MLP")), QStringLiteral("Feed-forward: SwiGLU"));
    QCOMPARE(qs(style.displayName("Attention")), QStringLiteral("Attention"));
    QCOMPARE(style.valueMin, std::optional<double>(0.0));
    QCOMPARE(style.valueMax, std::optional<double>(120.0));
    QCOMPARE(qs(style.valueLabel), QStringLiteral("Step time (s)"));
}

void TstFigureStyle::defaultsWhenKeysAreLeftOut()
{
    const config::FigureStyle style = config::readFigureStyle("figure_style:\n  height_in: auto\n", "style.yaml");
    QCOMPARE(style, config::FigureStyle());
    // A column figure is 3:4 (3.5 x 2.625 in); across a page 0.45 of the width (7 x 3.15 in).
    QCOMPARE(style.height(), 2.625);
    config::FigureStyle wide;
    wide.widthInches = 7;
    QCOMPARE(wide.height(), 3.15);
}

void TstFigureStyle::composedTextReadsBack()
{
    // Random styles over every key's range, names with characters YAML quotes.
    QRandomGenerator random(20261127);
    const std::vector<std::string> names { "TP comm.", "null", "yes", "a: b", "#hash", "Überlauf", "'quoted'" };
    for (int trial = 0; trial < 500; ++trial) {
        config::FigureStyle style;
        style.widthInches = 1 + random.bounded(19.0);
        style.heightInches = random.bounded(2) ? 0.0 : 1 + random.bounded(19.0);
        style.dpi = 72 + static_cast<int>(random.bounded(2329));
        style.fontFamily = random.bounded(2) ? "DejaVu Sans" : "Noto Serif: Display";
        style.fontSizePt = 4 + random.bounded(32.0);
        style.title = random.bounded(2) == 1;
        style.legend = static_cast<config::LegendPlacement>(random.bounded(4));
        style.palette = static_cast<config::FigurePalette>(random.bounded(3));
        const int renames = static_cast<int>(random.bounded(3));
        for (int index = 0; index < renames; ++index) {
            const std::string& from = names[static_cast<size_t>(random.bounded(static_cast<int>(names.size())))];
            if (style.displayName(from) == from) {
                style.seriesNames.push_back({ from, names[static_cast<size_t>(index)] + " shown" });
            }
        }
        if (random.bounded(2)) {
            style.valueMin = -random.bounded(1e6);
            style.valueMax = random.bounded(1e9) + 1;
        }
        if (random.bounded(2)) {
            style.valueLabel = "Time (ms): \"busiest\" stage";
        }
        const std::string text = config::composeFigureStyle(style);
        QCOMPARE(config::readFigureStyle(text, "composed.yaml"), style);
    }
}

void TstFigureStyle::mistakesAreLocated_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("keyPath");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");
    QTest::addRow("unknown key") << "figure_style:\n  width_in: 3.5\n  colour: red\n"
                                 << "figure_style.colour" << 3 << "unknown key";
    QTest::addRow("too narrow") << "figure_style:\n  width_in: 0.5\n"
                                << "figure_style.width_in" << 2 << "1";
    QTest::addRow("height word") << "figure_style:\n  height_in: tall\n"
                                 << "figure_style.height_in" << 2 << "number";
    QTest::addRow("dpi too fine") << "figure_style:\n  dpi: 100000\n"
                                  << "figure_style.dpi" << 2 << "2400";
    QTest::addRow("font too small") << "figure_style:\n  font_size_pt: 2\n"
                                    << "figure_style.font_size_pt" << 2 << "4";
    QTest::addRow("unknown palette") << "figure_style:\n  palette: viridis\n"
                                     << "figure_style.palette" << 2 << "okabe-ito";
    QTest::addRow("unknown legend") << "figure_style:\n  legend: left\n"
                                    << "figure_style.legend" << 2 << "right";
    QTest::addRow("axis upside down") << "figure_style:\n  value_min: 10\n  value_max: 5\n"
                                      << "figure_style.value_max" << 3 << "above its minimum";
    QTest::addRow("rename to a list") << "figure_style:\n  series_names:\n    MLP: [a, b]\n"
                                      << "figure_style.series_names.MLP" << 3 << "one line of text";
    QTest::addRow("no section") << "width_in: 3.5\n"
                                << "figure_style" << 1 << "figure_style: mapping at its root";
}

void TstFigureStyle::mistakesAreLocated()
{
    QFETCH(QString, text);
    QFETCH(QString, keyPath);
    QFETCH(int, line);
    QFETCH(QString, message);
    const config::Diagnostic problem = oneProblem(text.toStdString());
    QCOMPARE(qs(problem.location.source), QStringLiteral("style.yaml"));
    QCOMPARE(qs(problem.keyPath), keyPath);
    QCOMPARE(problem.location.line, line);
    QVERIFY2(qs(problem.message).contains(message), problem.toString().c_str());
}

void TstFigureStyle::workspaceKeepsItsStyle()
{
    config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", test::projectPresets());
    QVERIFY(!documents.figureStyle);
    config::FigureStyle style;
    style.legend = config::LegendPlacement::Bottom;
    style.seriesNames.push_back({ "MLP", "Feed-forward" });
    documents.figureStyle = style;
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "styled.yaml", config::composeWorkspace(documents));
    const config::WorkspaceDocuments back = config::readWorkspaceDocuments(path, test::projectPresets());
    QCOMPARE(back.figureStyle, std::optional<config::FigureStyle>(style));
}

void TstFigureStyle::loaderAcceptsAWorkspaceWithAStyle()
{
    config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", test::projectPresets());
    documents.figureStyle = config::FigureStyle();
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "styled.yaml", config::composeWorkspace(documents));
    const config::Scenario styled = test::projectLoader().loadWorkspace(path);
    const config::Scenario plain = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
    QCOMPARE(styled.run.parallelism.tp, plain.run.parallelism.tp);
    QCOMPARE(qs(styled.model.name), qs(plain.model.name));
}

void TstFigureStyle::damagedWorkspaceStyleIsReportedByPlace()
{
    config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", test::projectPresets());
    const std::string text = config::composeWorkspace(documents) + "figure_style:\n  width_in: 50\n";
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "damaged.yaml", text);
    const int line = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    for (const auto& diagnostics :
        { test::expectConfigError([&] { config::readWorkspaceDocuments(path, test::projectPresets()); }),
            test::expectConfigError([&] { test::projectLoader().loadWorkspace(path); }) }) {
        QCOMPARE(diagnostics.size(), size_t(1));
        QCOMPARE(qs(diagnostics.front().keyPath), QStringLiteral("figure_style.width_in"));
        QCOMPARE(diagnostics.front().location.line, line);
    }
}

QTEST_APPLESS_MAIN(TstFigureStyle)
#include "tst_figurestyle.moc"

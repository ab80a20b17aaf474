// SPDX-License-Identifier: GPL-3.0-or-later
// `rapid plot`: the workbench's dashboard charts drawn to a file with a figure style, through the same widgets and
// exporter as the workbench's Export Figure dialog, so a figure made in the GUI regenerates from a script (the SVG
// byte for byte, tests/app/tst_plotcli).
#include "clioutput.h"
#include "commands.h"

#include "common/chartexporter.h"
#include "common/chartwidget.h"
#include "common/figurestylepresets.h"
#include "evaluation/structureevaluator.h"
#include "results/inferencechart.h"
#include "results/memorychart.h"
#include "results/parameterchart.h"
#include "results/resultspanel.h"
#include "results/stepbreakdownchart.h"

#include "config/diagnostic.h"
#include "config/workspacefile.h"

#include <QApplication>

#include <cstdio>
#include <ostream>

namespace rapid::cli {

namespace {

Arguments plotArguments()
{
    return Arguments("plot",
        "Draws one of the workbench's dashboard charts for a scenario (a workspace, or --model, --hardware and "
        "--run) to a PDF, SVG or PNG file, in a figure style: --style, else the workspace's figure_style section, "
        "else the paper-column preset. The same style in the workbench's Export Figure dialog gives the same "
        "figure.",
        scenarioOptions({ { "chart", "NAME", "step (time breakdown), memory, inference or parameters", false },
            { "out", "FILE", "the figure; its suffix (.pdf, .svg, .png) is the format", false },
            { "style", "NAME|FILE",
                "a figure style preset (paper-column, paper-page, slides) or a style file (figure_style: at its root)",
                false },
            { "width", "INCHES", "the figure's width, replacing the style's (1 to 20)", false },
            { "dpi", "N", "PNG resolution, replacing the style's (72 to 2400)", false } }),
        "[WORKSPACE]");
}

widgets::ExportFormat formatOf(const std::string& path)
{
    const QString file = QString::fromStdString(path);
    for (widgets::ExportFormat format :
        { widgets::ExportFormat::Pdf, widgets::ExportFormat::Svg, widgets::ExportFormat::Png }) {
        if (file.endsWith(QLatin1Char('.') + widgets::suffixOf(format), Qt::CaseInsensitive)) {
            return format;
        }
    }
    throw UsageError("--out " + path + ": expected a file ending in .pdf, .svg or .png");
}

/// The style the options, the workspace or the default preset give. Throws ConfigError for a bad style file.
config::FigureStyle chosenStyle(const Arguments& arguments)
{
    if (const auto style = arguments.value("style")) {
        try {
            return widgets::FigureStylePresets::load(QString::fromStdString(*style));
        } catch (const config::ConfigError& error) {
            // A name that is neither a preset nor a file is a mistake in the option: say which one.
            const std::vector<config::Diagnostic>& problems = error.diagnostics();
            if (problems.size() == 1 && problems.front().location.line == 0) {
                throw UsageError("--style " + *style + ": " + problems.front().message);
            }
            throw;
        }
    }
    const bool separate = arguments.value("model") || arguments.value("hardware") || arguments.value("run");
    if (!separate) {
        std::string workspace = arguments.value("workspace").value_or("llama-3.1-70b-64xh100");
        if (!arguments.positional().empty()) {
            workspace = arguments.positional().front();
        }
        const config::WorkspaceDocuments documents
            = config::readWorkspaceDocuments(workspace, config::PresetLibrary::standard());
        if (documents.figureStyle) {
            return *documents.figureStyle;
        }
    }
    return *widgets::FigureStylePresets::preset(widgets::FigureStylePresets::defaultName());
}

widgets::ChartWidget* chartNamed(const std::string& name, widgets::ResultsPanel& panel)
{
    if (name == "step") {
        return panel.stepChart();
    }
    if (name == "memory") {
        return panel.memoryChart();
    }
    if (name == "inference") {
        return panel.inferenceChart();
    }
    if (name == "parameters") {
        return panel.chart();
    }
    throw UsageError("--chart \"" + name + "\": expected step, memory, inference or parameters");
}

} // namespace

int plotCommand(const Invocation& invocation)
{
    Arguments arguments = plotArguments();
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const std::string chartName = arguments.required("chart");
    const std::string out = arguments.required("out");
    widgets::ExportOptions options { formatOf(out), {} };
    const double width = boundedNumber(
        arguments, "width", config::kMinFigureInches, config::kMinFigureInches, config::kMaxFigureInches);
    const long long dpi
        = boundedInteger(arguments, "dpi", config::kMinFigureDpi, config::kMinFigureDpi, config::kMaxFigureDpi);

    // Charts are widgets: an application without a window system (the figure is drawn offscreen, the same fonts
    // and metrics wherever it runs).
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Qt's notes about the offscreen platform and a missing runtime directory are not the user's business; real
    // failures (critical, fatal) still reach standard error.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
        if (type == QtCriticalMsg || type == QtFatalMsg) {
            std::fprintf(stderr, "rapid plot: %s\n", qPrintable(message));
        }
    });
    static int argc = 1;
    static char name[] = "rapid";
    static char* argv[] = { name, nullptr };
    const QApplication application(argc, argv);

    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::Scenario scenario = loadScenario(arguments, loader);
    options.figure = chosenStyle(arguments);
    if (arguments.value("width")) {
        options.figure.widthInches = width;
    }
    if (arguments.value("dpi")) {
        options.figure.dpi = static_cast<int>(dpi);
    }
    widgets::ResultsPanel panel;
    widgets::ChartWidget* chart = chartNamed(chartName, panel);
    panel.resize(1200, 800);
    panel.showEvaluation(widgets::StructureEvaluator().evaluate(scenario));
    QString error;
    if (!widgets::ChartExporter::exportWidget(chart, QString::fromStdString(out), options, &error)) {
        invocation.err << "rapid plot: --out " << out << ": " << error.toStdString() << "\n";
        return InputError;
    }
    invocation.out << "wrote " << out << " (" << chart->title().toStdString() << ", " << options.figure.widthInches
                   << " x " << options.figure.height() << " in)\n";
    return Success;
}

} // namespace rapid::cli

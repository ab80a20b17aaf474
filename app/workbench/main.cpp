// SPDX-License-Identifier: GPL-3.0-or-later
// rapid-workbench: opens a workspace (a file given on the command line, or the default preset) in the main window.
#include "mainwindow.h"

#include "config/presetlibrary.h"
#include "sim/heapreuse.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char* argv[])
{
    rapid::sim::keepFreedHeapForReuse(); // every what-if evaluates a step graph and drops it: keep the pages
    QApplication app(argc, argv);
    // QSettings and QStandardPaths (recent files, window state, autosave) are keyed by these.
    QApplication::setOrganizationName(QStringLiteral("RAPID-LLM"));
    QApplication::setApplicationName(QStringLiteral("rapid-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("RAPID-LLM Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(RAPID_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Predicts how large language models train and serve on GPU "
                                                    "clusters."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("workspace"),
        QStringLiteral("A *.rapid.yaml file or workspace preset name (default: "
                       "llama-3.1-70b-64xh100)."),
        QStringLiteral("[workspace]"));
    parser.process(app);

    rapid::widgets::MainWindow window(
        rapid::config::PresetLibrary::standard(QCoreApplication::applicationFilePath().toStdString()));
    const QStringList arguments = parser.positionalArguments();
    window.openWorkspace(arguments.isEmpty() ? QStringLiteral("llama-3.1-70b-64xh100") : arguments.first());
    window.show();
    return QApplication::exec();
}

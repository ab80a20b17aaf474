// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/faultstudypage.h"

#include "editors/workspacedocument.h"
#include "resilience/resiliencecharts.h"
#include "resilience/resiliencefields.h"
#include "resilience/resiliencerunner.h"
#include "resilience/resultcodec.h"

#include "network/topology.h"
#include "resilience/linkclasses.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>
#include <QTableWidget>

#include <algorithm>

namespace rapid::widgets {

QString slowdownText(double slowdown)
{
    return QString::number(slowdown, 'f', 4);
}

std::vector<LinkClassEntry> classesOf(const config::Scenario& scenario, QString* problem)
{
    std::vector<LinkClassEntry> classes;
    problem->clear();
    try {
        const network::Topology topology(scenario.hardware);
        for (const resilience::LinkClass& linkClass : resilience::linkClasses(topology)) {
            classes.push_back({ linkClass.name, static_cast<int>(linkClass.physicalLinks.size()),
                static_cast<int>(linkClass.unitCount()), linkClass.optIn });
        }
    } catch (const std::exception& error) {
        *problem = QString::fromUtf8(error.what());
    }
    return classes;
}

FaultStudyPage::FaultStudyPage(WorkspaceDocument* document, QWidget* parent)
    : StudyRowsPage(document, tr("Run study"), QStringLiteral("faultStudy"),
        { tr("k"), tr("health"), tr("connected"), tr("cut off"), tr("mean"), tr("p50"), tr("p90"), tr("p99"),
            tr("max") },
        QStringLiteral("faultStudyTable"), parent)
    , m_faultyLinks(new NumberListEdit(
          QStringLiteral("1, 2"), { 1, 1e6, true, true, true, 8 }, QStringLiteral("faultyLinks"), this))
    , m_health(new NumberListEdit(
          QStringLiteral("0, 0.5"), { 0, 1, true, false, false, 8 }, QStringLiteral("faultHealth"), this))
    , m_classes(new LinkClassList(QStringLiteral("faultClasses"), this))
    , m_trials(new QSpinBox(this))
    , m_seed(new QSpinBox(this))
    , m_backend(createBackendCombo(QStringLiteral("faultBackend"), this))
    , m_chart(new SlowdownCdfChart(this))
{
    setObjectName(QStringLiteral("faultStudyPage"));
    m_trials->setObjectName(QStringLiteral("faultTrials"));
    m_trials->setRange(1, 100000);
    m_trials->setValue(50);
    m_seed->setObjectName(QStringLiteral("faultSeed"));
    m_seed->setRange(0, 2147483647);
    m_seed->setValue(1);
    m_faultyLinks->setToolTip(tr("k: links degraded together in each trial, e.g. 1, 2, 4"));
    m_health->setToolTip(tr("h: their health, 0 (failed: routed around) to below 1, e.g. 0, 0.5"));
    form()->addRow(tr("Faulty links k"), m_faultyLinks);
    form()->addRow(tr("Health h"), m_health);
    // Spanning the form: class names ("nvlink GPU-switch") need the width.
    form()->addRow(new QLabel(tr("Link classes"), this));
    form()->addRow(m_classes);
    form()->addRow(tr("Trials per (k, h)"), m_trials);
    form()->addRow(tr("Seed"), m_seed);
    form()->addRow(tr("Backend"), m_backend);

    layOutWithResults(m_chart, table());

    connect(m_faultyLinks, &NumberListEdit::validityChanged, this, &FaultStudyPage::updateValidity);
    connect(m_health, &NumberListEdit::validityChanged, this, &FaultStudyPage::updateValidity);
    connect(m_classes, &LinkClassList::validityChanged, this, &FaultStudyPage::updateValidity);
    if (document->scenario()) {
        scenarioUpdated(*document->scenario());
    }
    updateValidity();
}

void FaultStudyPage::updateValidity()
{
    setInputsValid(m_faultyLinks->isValid() && m_health->isValid() && m_classes->isValid());
}

void FaultStudyPage::scenarioUpdated(const config::Scenario& scenario)
{
    // Laid out again only when the hardware changed: most edits are to the model or the run.
    if (document()->documents().hardware.text != m_hardwareText) {
        m_hardwareText = document()->documents().hardware.text;
        QString problem;
        const auto classes = classesOf(scenario, &problem);
        m_classes->setClasses(classes, problem);
    }
}

bool FaultStudyPage::run()
{
    std::optional<config::Scenario> scenario = trainingScenario();
    if (!scenario) {
        return false;
    }
    // Named: a range-for over *values() would iterate a destroyed temporary.
    const std::vector<double> faultyLinks = m_faultyLinks->values().value_or(std::vector<double>());
    const std::vector<double> healths = m_health->values().value_or(std::vector<double>());
    std::vector<resilience::FaultStudySpec> specs;
    for (const double k : faultyLinks) {
        for (const double h : healths) {
            resilience::FaultStudySpec spec;
            spec.faultyLinks = static_cast<int>(k);
            spec.health = h;
            spec.classes = m_classes->checkedClasses();
            spec.trials = m_trials->value();
            spec.seed = static_cast<std::uint64_t>(m_seed->value());
            spec.backend = backendOf(m_backend);
            specs.push_back(std::move(spec));
        }
    }
    const qint64 trials = static_cast<qint64>(specs.size()) * m_trials->value();
    runner()->runStudies(std::move(*scenario), std::move(specs));
    started(tr("Running %1 trials on the workspace as it was at Run…").arg(QLocale().toString(trials)));
    return true;
}

void FaultStudyPage::showStudy(const StudyRows& rows)
{
    std::vector<SlowdownSeries> series;
    int cutOff = 0;
    for (size_t i = 0; i < rows.specs.size(); ++i) {
        const resilience::FaultStudySpec& spec = rows.specs[i];
        const resilience::FaultStudyResult& result = rows.results[i];
        const int connected = static_cast<int>(result.trials.size()) - result.disconnected;
        cutOff += result.disconnected;
        const QString h = QString::number(spec.health, 'g', 4);
        SlowdownSeries curve { tr("k %1, h %2").arg(spec.faultyLinks).arg(h), {} };
        for (const resilience::FaultTrial& trial : result.trials) {
            if (!trial.disconnected) {
                curve.slowdowns.push_back(trial.stepSeconds / result.baselineSeconds);
            }
        }
        series.push_back(std::move(curve));
        const bool any = connected > 0;
        const QStringList cells { QString::number(spec.faultyLinks), h, QString::number(connected),
            QString::number(result.disconnected), any ? slowdownText(result.meanSlowdown) : QStringLiteral("–"),
            any ? slowdownText(result.p50Slowdown) : QStringLiteral("–"),
            any ? slowdownText(result.p90Slowdown) : QStringLiteral("–"),
            any ? slowdownText(result.p99Slowdown) : QStringLiteral("–"),
            any ? slowdownText(result.maxSlowdown) : QStringLiteral("–") };
        appendResultRow(table(), cells);
    }
    m_chart->setSeries(std::move(series));
    const double baseline = rows.results.empty() ? 0 : rows.results.front().baselineSeconds;
    showResult(tr("%1 rows of %2 trials; healthy step %3 s (%4 backend); %5 trials cut GPUs apart (not in the "
                  "slowdowns).")
                   .arg(rows.specs.size())
                   .arg(rows.specs.empty() ? 0 : rows.specs.front().trials)
                   .arg(QString::number(baseline, 'g', 5))
                   .arg(rows.specs.empty() ? QString() : QString::fromStdString(sim::toString(rows.specs[0].backend)))
                   .arg(cutOff));
}

void FaultStudyPage::showInputsOf(const StudyRows& rows)
{
    std::vector<double> faultyLinks;
    std::vector<double> healths;
    for (const resilience::FaultStudySpec& spec : rows.specs) {
        faultyLinks.push_back(spec.faultyLinks);
        healths.push_back(spec.health);
    }
    const resilience::FaultStudySpec& first = rows.specs.front();
    m_faultyLinks->lineEdit()->setText(distinctValuesText(faultyLinks));
    m_health->lineEdit()->setText(distinctValuesText(healths));
    m_trials->setValue(first.trials);
    m_seed->setValue(static_cast<int>(std::min<std::uint64_t>(first.seed, 2147483647)));
    chooseBackend(m_backend, first.backend);
    m_classes->check(first.classes);
}

void FaultStudyPage::clearChart()
{
    m_chart->setSeries({});
}

} // namespace rapid::widgets

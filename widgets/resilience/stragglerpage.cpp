// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/stragglerpage.h"

#include "editors/workspacedocument.h"
#include "resilience/faultstudypage.h"
#include "resilience/resiliencecharts.h"
#include "resilience/resiliencefields.h"
#include "resilience/resiliencerunner.h"
#include "resilience/resultcodec.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>
#include <QTableWidget>

#include <algorithm>
#include <cmath>
#include <map>

namespace rapid::widgets {

StragglerPage::StragglerPage(WorkspaceDocument* document, QWidget* parent)
    : StudyRowsPage(document, tr("Run study"), QStringLiteral("straggler"),
        { tr("slow GPUs"), tr("slowdown"), tr("mean"), tr("p50"), tr("p99"), tr("max") },
        QStringLiteral("stragglerTable"), parent)
    , m_shares(new NumberListEdit(
          QStringLiteral("0.02, 0.1"), { 0, 1, false, true, false, 6 }, QStringLiteral("slowShares"), this))
    , m_slowdowns(new NumberListEdit(
          QStringLiteral("1.1, 1.25, 1.5, 2"), { 1, 1000, true, true, false, 12 }, QStringLiteral("slowFactors"), this))
    , m_trials(new QSpinBox(this))
    , m_seed(new QSpinBox(this))
    , m_backend(createBackendCombo(QStringLiteral("stragglerBackend"), this))
    , m_chart(new StragglerChart(this))
{
    setObjectName(QStringLiteral("stragglerPage"));
    m_trials->setObjectName(QStringLiteral("stragglerTrials"));
    m_trials->setRange(1, 100000);
    m_trials->setValue(20);
    m_seed->setObjectName(QStringLiteral("stragglerSeed"));
    m_seed->setRange(0, 2147483647);
    m_seed->setValue(1);
    // The analytical backend by default here: stragglers slow compute, which the two backends time alike.
    m_backend->setCurrentIndex(1);
    m_shares->setToolTip(tr("Shares of the GPUs that are slow, above 0 up to 1; each is at least one GPU"));
    m_slowdowns->setToolTip(tr("How many times slower a slow GPU's kernels run, 1 to 1000"));
    form()->addRow(tr("Slow GPU shares"), m_shares);
    form()->addRow(tr("Slowdowns S"), m_slowdowns);
    form()->addRow(tr("Trials per row"), m_trials);
    form()->addRow(tr("Seed"), m_seed);
    form()->addRow(tr("Backend"), m_backend);

    layOutWithResults(m_chart, table());

    const auto validity = [this] { setInputsValid(m_shares->isValid() && m_slowdowns->isValid()); };
    connect(m_shares, &NumberListEdit::validityChanged, this, validity);
    connect(m_slowdowns, &NumberListEdit::validityChanged, this, validity);
    validity();
}

bool StragglerPage::run()
{
    std::optional<config::Scenario> scenario = trainingScenario();
    if (!scenario) {
        return false;
    }
    const int gpus = scenario->run.parallelism.gpuCount();
    // Named: a range-for over *values() would iterate a destroyed temporary.
    std::vector<double> slowdowns = m_slowdowns->values().value_or(std::vector<double>());
    const std::vector<double> shares = m_shares->values().value_or(std::vector<double>());
    std::sort(slowdowns.begin(), slowdowns.end());
    std::vector<resilience::FaultStudySpec> specs;
    std::vector<int> counts;
    for (const double share : shares) {
        // Two shares that round to the same count are one study.
        const int count = std::max(1, static_cast<int>(std::lround(share * gpus)));
        if (std::find(counts.begin(), counts.end(), count) != counts.end()) {
            continue;
        }
        counts.push_back(count);
        for (const double slowdown : slowdowns) {
            resilience::FaultStudySpec spec;
            spec.slowGpus = count;
            spec.slowdown = slowdown;
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

void StragglerPage::showStudy(const StudyRows& rows)
{
    std::map<int, StragglerSeries> byCount; // ascending slow-GPU counts, each over ascending slowdowns
    for (size_t i = 0; i < rows.specs.size(); ++i) {
        const resilience::FaultStudySpec& spec = rows.specs[i];
        const resilience::FaultStudyResult& result = rows.results[i];
        StragglerSeries& series = byCount[spec.slowGpus];
        if (series.name.isEmpty()) {
            series.name = spec.slowGpus == 1 ? tr("1 slow GPU") : tr("%1 slow GPUs").arg(spec.slowGpus);
        }
        series.slowdowns.push_back(spec.slowdown);
        series.p50.push_back(result.p50Slowdown);
        series.p99.push_back(result.p99Slowdown);
        const QStringList cells { QString::number(spec.slowGpus), QString::number(spec.slowdown, 'g', 4),
            slowdownText(result.meanSlowdown), slowdownText(result.p50Slowdown), slowdownText(result.p99Slowdown),
            slowdownText(result.maxSlowdown) };
        appendResultRow(table(), cells);
    }
    std::vector<StragglerSeries> series;
    for (auto& [count, curve] : byCount) {
        series.push_back(std::move(curve));
    }
    m_chart->setSeries(std::move(series));
    showResult(tr("%1 rows of %2 trials; a step never stretches beyond S (the grey bound).")
                   .arg(rows.specs.size())
                   .arg(rows.specs.empty() ? 0 : rows.specs.front().trials));
}

void StragglerPage::showInputsOf(const StudyRows& rows)
{
    std::vector<double> slowdowns;
    for (const resilience::FaultStudySpec& spec : rows.specs) {
        slowdowns.push_back(spec.slowdown);
    }
    const resilience::FaultStudySpec& first = rows.specs.front();
    m_slowdowns->lineEdit()->setText(distinctValuesText(slowdowns));
    m_trials->setValue(first.trials);
    m_seed->setValue(static_cast<int>(std::min<std::uint64_t>(first.seed, 2147483647)));
    chooseBackend(m_backend, first.backend);
}

void StragglerPage::clearChart()
{
    m_chart->setSeries({});
}

} // namespace rapid::widgets

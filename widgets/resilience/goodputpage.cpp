// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/goodputpage.h"

#include "common/captionedfigure.h"

#include "common/countspinbox.h"
#include "common/figureformat.h"
#include "editors/workspacedocument.h"
#include "resilience/goodputfigures.h"
#include "resilience/resiliencecharts.h"
#include "resilience/resiliencerunner.h"
#include "resilience/resultcodec.h"
#include "resilience/studyrowspage.h"

#include "resilience/failurerates.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QTableWidget>

namespace rapid::widgets {

namespace {

QDoubleSpinBox* createSpin(const QString& objectName, double low, double high, double value, int decimals,
    const QString& suffix, const QString& tip, QWidget* parent)
{
    auto* spin = new QDoubleSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(low, high);
    spin->setDecimals(decimals);
    spin->setValue(value);
    spin->setSuffix(suffix);
    spin->setToolTip(tip);
    spin->setKeyboardTracking(false);
    return spin;
}

QString percent(double fraction, int decimals = 2)
{
    return QStringLiteral("%1%").arg(QString::number(100 * fraction, 'f', decimals));
}

/// A confidence interval's half-width to two significant digits: at the defaults (an interruption a month) it is a
/// few thousandths of a percent, which two decimals would print as 0.00%.
QString spread(double fraction)
{
    return QStringLiteral("± %1%").arg(QString::number(100 * fraction, 'g', 2));
}

} // namespace

GoodputPage::GoodputPage(WorkspaceDocument* document, QWidget* parent)
    : ResiliencePage(document, tr("Compute"), QStringLiteral("goodput"), parent)
    , m_tokens(new CountSpinBox(1e9, tr("tokens"), this))
    , m_mtbf(createSpin(QStringLiteral("goodputMtbf"), 0, 1e6, 0, 2, tr(" h"),
          tr("The job's mean time between interruptions; the lowest value uses the Llama 3 405B run's rate "
             "(419 in 54 days on 16,384 GPUs) for the workspace's GPUs"),
          this))
    , m_storage(createSpin(QStringLiteral("goodputStorage"), 0.1, 1e6, 2000, 1, tr(" GB/s"),
          tr("Checkpoint write and read bandwidth (default 2 TB/s: Tectonic as the Llama 3 run used it)"), this))
    , m_detect(createSpin(QStringLiteral("goodputDetect"), 0, 1e4, 10, 1, tr(" min"),
          tr("Time to notice an interruption (default 10 min: PyTorch's NCCL collective timeout)"), this))
    , m_relaunch(createSpin(QStringLiteral("goodputRelaunch"), 0, 1e5, 0, 1, tr(" min"),
          tr("Time to replace the failed part and start the job again"), this))
    , m_trials(new QSpinBox(this))
    , m_seed(new QSpinBox(this))
    , m_chart(new GoodputChart(this))
    , m_figures(new QLabel(this))
    , m_table(createResultTable(
          { tr("interval"), tr("expected"), tr("simulated"), tr("± 95% CI"), tr("p10–p90"), tr("interruptions") },
          QStringLiteral("goodputTable"), this))
{
    setObjectName(QStringLiteral("goodputPage"));
    m_tokens->setObjectName(QStringLiteral("goodputTokens"));
    m_tokens->setRange(0.001, 1e6);
    m_tokens->setValue(GoodputInputs().tokens / 1e9);
    m_tokens->setKeyboardTracking(false);
    m_tokens->setToolTip(tr("Training tokens, e.g. 15.6T, 350B or 500M (a bare number is billions): the steps are "
                            "tokens / (global batch x sequence length)"));
    m_mtbf->setSpecialValueText(tr("Llama 3 rate"));
    m_figures->setObjectName(QStringLiteral("goodputFigures"));
    m_figures->setWordWrap(true);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form()->addRow(tr("Training"), m_tokens);
    form()->addRow(tr("MTBF"), m_mtbf);
    form()->addRow(tr("Storage"), m_storage);
    form()->addRow(tr("Detection"), m_detect);
    form()->addRow(tr("Relaunch"), m_relaunch);
    m_trials->setObjectName(QStringLiteral("goodputTrials"));
    m_trials->setRange(0, 100000);
    m_trials->setValue(GoodputInputs().trials);
    m_trials->setSpecialValueText(tr("none"));
    m_trials->setToolTip(tr("Simulated runs at each of %1 intervals from 1/8 to 8 times the optimum; none: the "
                            "expected curve alone")
                             .arg(kSimulatedPoints));
    m_seed->setObjectName(QStringLiteral("goodputSeed"));
    m_seed->setRange(0, 2147483647);
    m_seed->setValue(1);
    m_seed->setToolTip(tr("Seed of the simulated interruptions: the same seed gives the same runs"));
    form()->addRow(tr("Simulated runs"), m_trials);
    form()->addRow(tr("Seed"), m_seed);

    layOutWithResults(new CaptionedFigure(m_chart, m_figures, this), m_table);
    connect(runner(), &ResilienceRunner::goodputFinished, this, &GoodputPage::showFigures);
}

bool GoodputPage::run()
{
    std::optional<config::Scenario> scenario = trainingScenario();
    if (!scenario) {
        return false;
    }
    GoodputInputs inputs;
    inputs.tokens = m_tokens->value() * 1e9;
    inputs.mtbfSeconds = m_mtbf->value() * 3600;
    inputs.storageBytesPerSecond = m_storage->value() * 1e9;
    inputs.detectSeconds = m_detect->value() * 60;
    inputs.relaunchSeconds = m_relaunch->value() * 60;
    inputs.trials = m_trials->value();
    inputs.seed = static_cast<std::uint64_t>(m_seed->value());
    runner()->runGoodput(std::move(*scenario), inputs);
    started(inputs.trials > 0 ? tr("Timing the workspace's step, then simulating %1 runs…")
                                    .arg(QLocale().toString(static_cast<qint64>(inputs.trials) * kSimulatedPoints))
                              : tr("Timing the workspace's step…"));
    return true;
}

void GoodputPage::showFigures(const GoodputFigures& f)
{
    m_chart->setFigures(f);
    const double atOptimum = resilience::expectedEffectiveFraction(f.run, f.optimum);
    const QString mtbfSource = f.mtbfFromRecord ? tr("the Llama 3 run's rate for %1 GPUs").arg(f.gpus) : tr("given");
    m_figures->setText(
        tr("Step %1 × %2 steps = %3 of work. One interruption every %4 (%5). Checkpoint %6: %7 to write; restart %8. "
           "Intervals: Young %9, Daly %10, optimum %11, where %12 of wall time trains.")
            .arg(QString::number(f.stepSeconds, 'g', 4) + QStringLiteral(" s"), formatShortCount(f.steps),
                durationText(f.run.workSeconds), durationText(f.run.mtbfSeconds), mtbfSource,
                formatGiB(f.checkpointBytes), durationText(f.run.checkpointSeconds), durationText(f.run.restartSeconds),
                durationText(f.young))
            .arg(durationText(f.daly), durationText(f.optimum), percent(atOptimum)));
    showSimulatedRows(f);
    QString summary = tr("Goodput at the optimal interval: %1.").arg(percent(atOptimum));
    if (!f.simulationProblem.isEmpty()) {
        summary += QLatin1Char('\n') + tr("Not simulated: %1.").arg(f.simulationProblem);
    }
    showResult(summary);
}

void GoodputPage::showSimulatedRows(const GoodputFigures& f)
{
    m_table->setRowCount(0);
    for (const SimulatedGoodput& point : f.simulated) {
        const resilience::RunStudy& study = point.study;
        const QStringList cells { durationText(point.interval),
            // Three decimals: near the optimum the curve is flat, and the points differ in the third.
            percent(resilience::expectedEffectiveFraction(f.run, point.interval), 3),
            percent(study.meanEffectiveFraction, 3), spread(point.halfWidth95()),
            // One column for the spread of the runs: at 1280 x 720 seven columns scrolled sideways.
            QStringLiteral("%1–%2%").arg(QString::number(100 * study.p10EffectiveFraction, 'f', 2),
                QString::number(100 * study.p90EffectiveFraction, 'f', 2)),
            QString::number(study.meanInterruptions, 'f', 1) };
        appendResultRow(m_table, cells);
    }
}

void GoodputPage::clearResult()
{
    m_chart->setFigures(std::nullopt);
    m_figures->clear();
    m_table->setRowCount(0);
}

QJsonObject GoodputPage::resultJson() const
{
    return m_chart->figures() ? goodputToJson(*m_chart->figures()) : QJsonObject();
}

bool GoodputPage::restoreResult(const QJsonObject& json, const std::optional<config::ResultDocuments>& /*from*/)
{
    const std::optional<GoodputFigures> figures = goodputFromJson(json);
    if (figures) {
        showFigures(*figures);
    }
    return figures.has_value();
}

} // namespace rapid::widgets

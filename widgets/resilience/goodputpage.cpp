// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/goodputpage.h"

#include "common/figureformat.h"
#include "editors/workspacedocument.h"
#include "resilience/goodputfigures.h"
#include "resilience/resiliencecharts.h"
#include "resilience/resiliencerunner.h"

#include "resilience/failurerates.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

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

QString percent(double fraction)
{
    return QStringLiteral("%1%").arg(QString::number(100 * fraction, 'f', 2));
}

} // namespace

GoodputPage::GoodputPage(WorkspaceDocument* document, QWidget* parent)
    : ResiliencePage(document, tr("Compute"), QStringLiteral("goodput"), parent)
    , m_tokens(createSpin(QStringLiteral("goodputTokens"), 0.001, 1e6, 1000, 3, tr(" B tokens"),
          tr("Training tokens, in billions: the steps are tokens / (global batch x sequence length)"), this))
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
    , m_chart(new GoodputChart(this))
    , m_figures(new QLabel(this))
{
    setObjectName(QStringLiteral("goodputPage"));
    m_mtbf->setSpecialValueText(tr("Llama 3 rate"));
    m_figures->setObjectName(QStringLiteral("goodputFigures"));
    m_figures->setWordWrap(true);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form()->addRow(tr("Training"), m_tokens);
    form()->addRow(tr("MTBF"), m_mtbf);
    form()->addRow(tr("Storage"), m_storage);
    form()->addRow(tr("Detection"), m_detect);
    form()->addRow(tr("Relaunch"), m_relaunch);

    auto* results = new QWidget(this);
    auto* resultsLayout = new QVBoxLayout(results);
    resultsLayout->setContentsMargins(0, 0, 0, 0);
    resultsLayout->addWidget(m_chart, 1);
    resultsLayout->addWidget(m_figures);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(inputsColumn());
    layout->addWidget(results, 1);
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
    runner()->runGoodput(std::move(*scenario), inputs);
    started(tr("Timing the workspace's step…"));
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
            .arg(QString::number(f.stepSeconds, 'g', 4) + QStringLiteral(" s"), QString::number(f.steps, 'g', 6),
                durationText(f.run.workSeconds), durationText(f.run.mtbfSeconds), mtbfSource,
                formatGiB(f.checkpointBytes), durationText(f.run.checkpointSeconds), durationText(f.run.restartSeconds),
                durationText(f.young))
            .arg(durationText(f.daly), durationText(f.optimum), percent(atOptimum)));
    showResult(tr("Goodput at the optimal interval: %1.").arg(percent(atOptimum)));
}

void GoodputPage::clearResult()
{
    m_chart->setFigures(std::nullopt);
    m_figures->clear();
}

} // namespace rapid::widgets

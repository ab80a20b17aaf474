// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/congestionrunbox.h"

#include "editors/workspacedocument.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

namespace rapid::widgets {

namespace {

QString seconds(double value)
{
    if (value >= 1) {
        return QString::number(value, 'g', 4) + QStringLiteral(" s");
    }
    return QString::number(value * 1e3, 'g', 4) + QStringLiteral(" ms");
}

} // namespace

CongestionRunBox::CongestionRunBox(WorkspaceDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_runner(new CongestionRunner(this))
    , m_simulate(new QPushButton(tr("Simulate congestion"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_progress(new QProgressBar(this))
    , m_result(new QLabel(this))
{
    setObjectName(QStringLiteral("congestionRunBox"));
    m_simulate->setObjectName(QStringLiteral("congestionSimulateButton"));
    m_simulate->setToolTip(tr("Run the training step with every flow of every group simulated on this network "
                              "(max-min fair link sharing), then colour the links by their utilisation"));
    m_cancel->setObjectName(QStringLiteral("congestionCancelButton"));
    m_progress->setObjectName(QStringLiteral("congestionProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_result->setObjectName(QStringLiteral("congestionResult"));
    m_result->setWordWrap(true);
    m_result->setText(tr("Analytical backend live; the congestion backend runs on demand."));

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_simulate, 1);
    buttons->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_result);
    showRunning(false);

    connect(m_simulate, &QPushButton::clicked, this, &CongestionRunBox::simulate);
    connect(m_cancel, &QPushButton::clicked, m_runner, &CongestionRunner::cancel);
    connect(m_runner, &CongestionRunner::progressChanged, this,
        [this](double fraction) { m_progress->setValue(static_cast<int>(std::lround(fraction * 1000))); });
    connect(m_runner, &CongestionRunner::finished, this, [this](const CongestionOutcome& outcome) {
        showRunning(false);
        showOutcome(outcome);
    });
    connect(m_runner, &CongestionRunner::failed, this, [this](const QString& message) {
        showRunning(false);
        m_result->setText(tr("Congestion backend: %1").arg(message));
    });
    connect(m_runner, &CongestionRunner::cancelled, this, [this] {
        showRunning(false);
        m_result->setText(tr("Congestion simulation cancelled; nothing was applied."));
    });
    connect(m_document, &WorkspaceDocument::scenarioChanged, this, &CongestionRunBox::forget);
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this,
        [this] { m_simulate->setEnabled(!m_runner->isRunning() && m_document->scenario().has_value()); });
}

void CongestionRunBox::simulate()
{
    const std::optional<config::Scenario>& scenario = m_document->scenario();
    if (!scenario) {
        m_result->setText(tr("Fix the configuration first: the congestion backend needs a valid workspace."));
        return;
    }
    if (scenario->run.mode != config::RunMode::Training) {
        m_result->setText(tr("The congestion backend co-simulates training steps; this workspace is an inference "
                             "run."));
        return;
    }
    m_outcome.reset();
    Q_EMIT utilisationCleared();
    m_progress->setValue(0);
    showRunning(true);
    m_result->setText(tr("Simulating every flow of the step…"));
    m_runner->start(*scenario);
}

void CongestionRunBox::showRunning(bool running)
{
    m_simulate->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_cancel->setVisible(running);
    m_progress->setVisible(running);
}

void CongestionRunBox::showOutcome(const CongestionOutcome& outcome)
{
    m_outcome = outcome;
    const double congestion = outcome.congestion.stepTimeSeconds;
    const double analytical = outcome.analyticalStepSeconds;
    const double change = analytical > 0 ? 100 * (congestion - analytical) / analytical : 0;
    m_result->setText(tr("Congestion backend: step %1 (analytical %2, %3%4%). Links coloured by utilisation over the "
                         "step.")
                          .arg(seconds(congestion), seconds(analytical), change >= 0 ? QStringLiteral("+") : QString(),
                              QString::number(change, 'f', 1)));
    Q_EMIT utilisationAvailable(outcome.congestion.linkUtilisation);
    Q_EMIT stepAvailable(outcome.congestion);
}

void CongestionRunBox::forget()
{
    if (m_runner->isRunning()) {
        m_runner->cancel();
    }
    if (m_outcome) {
        m_outcome.reset();
        m_result->setText(tr("The configuration changed: simulate again for congestion results."));
        Q_EMIT utilisationCleared();
        Q_EMIT stepCleared();
    }
}

} // namespace rapid::widgets

// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/jobcontrols.h"

#include "common/problemcolor.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace rapid::widgets {

JobControls::JobControls(const QString& runText, const QString& objectPrefix, QWidget* parent)
    : QWidget(parent)
    , m_run(new QPushButton(runText, this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
{
    m_run->setObjectName(objectPrefix + QStringLiteral("RunButton"));
    m_cancel->setObjectName(objectPrefix + QStringLiteral("CancelButton"));
    m_progress->setObjectName(objectPrefix + QStringLiteral("Progress"));
    m_status->setObjectName(objectPrefix + QStringLiteral("Status"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setRange(0, 1000);
    m_progress->setFormat(QStringLiteral("%v"));
    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_run);
    row->addWidget(m_progress, 1);
    row->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(m_status);
    setRunning(false);
}

void JobControls::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_cancel->setVisible(running);
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
    if (running) {
        m_progress->setRange(0, 0); // busy until the first progress report gives the total
    }
}

void JobControls::setProgress(qint64 done, qint64 total)
{
    if (total <= 0) {
        return;
    }
    // The bar's range is an int: done and total may not fit, their ratio in thousandths does.
    m_progress->setRange(0, 1000);
    m_progress->setValue(static_cast<int>(1000 * std::min(done, total) / total));
    m_progress->setFormat(tr("%1 of %2").arg(done).arg(total));
}

void JobControls::setStatus(const QString& text, bool problem)
{
    m_status->setText(text);
    QPalette colours = m_status->palette();
    colours.setColor(QPalette::WindowText, problem ? problemColor(palette()) : palette().color(QPalette::WindowText));
    m_status->setPalette(colours);
}

} // namespace rapid::widgets

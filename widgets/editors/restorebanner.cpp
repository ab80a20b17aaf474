// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/restorebanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace rapid::widgets {

RestoreBanner::RestoreBanner(QWidget* parent)
    : QFrame(parent)
    , m_message(new QLabel(this))
    , m_restore(new QPushButton(tr("Restore unsaved edits"), this))
    , m_discard(new QPushButton(tr("Discard"), this))
{
    setObjectName(QStringLiteral("restoreBanner"));
    m_restore->setObjectName(QStringLiteral("restoreButton"));
    m_discard->setObjectName(QStringLiteral("discardButton"));
    // The tooltip roles are a background/text pair every style makes legible, light or dark.
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::ToolTipBase);
    setForegroundRole(QPalette::ToolTipText);
    m_message->setForegroundRole(QPalette::ToolTipText);
    setFrameShape(QFrame::StyledPanel);
    m_message->setWordWrap(true);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_restore);
    layout->addWidget(m_discard);
    connect(m_restore, &QPushButton::clicked, this, &RestoreBanner::restoreRequested);
    connect(m_discard, &QPushButton::clicked, this, &RestoreBanner::discardRequested);
}

void RestoreBanner::setMessage(const QString& message)
{
    m_message->setText(message);
}

} // namespace rapid::widgets

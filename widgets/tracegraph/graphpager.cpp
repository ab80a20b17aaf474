// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphpager.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace rapid::widgets {

GraphPager::GraphPager(QWidget* parent)
    : QWidget(parent)
    , m_label(new QLabel(this))
    , m_previous(new QPushButton(tr("◂ Previous"), this))
    , m_next(new QPushButton(tr("Next ▸"), this))
{
    setObjectName(QStringLiteral("graphPager"));
    m_label->setObjectName(QStringLiteral("graphWindowNotice"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The notice wraps in a narrow results panel instead of widening it.
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_previous->setObjectName(QStringLiteral("previousWindowButton"));
    m_previous->setToolTip(tr("Draw the nodes with the ids just below the drawn ones"));
    m_next->setObjectName(QStringLiteral("nextWindowButton"));
    m_next->setToolTip(tr("Draw the nodes with the ids just above the drawn ones"));
    connect(m_previous, &QPushButton::clicked, this, &GraphPager::previousRequested);
    connect(m_next, &QPushButton::clicked, this, &GraphPager::nextRequested);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_previous, 0, Qt::AlignTop);
    layout->addWidget(m_next, 0, Qt::AlignTop);
    hide();
}

void GraphPager::showWindow(const QString& text, bool hasPrevious, bool hasNext)
{
    m_label->setText(text);
    m_previous->setEnabled(hasPrevious);
    m_next->setEnabled(hasNext);
    show();
}

} // namespace rapid::widgets

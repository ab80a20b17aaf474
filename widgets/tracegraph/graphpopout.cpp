// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphpopout.h"

#include <QAction>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <QWidget>

namespace rapid::widgets {

namespace {

constexpr double kWindowShareOfScreen = 0.9; ///< the own window opens this share of the screen's free area

} // namespace

GraphPopOut::GraphPopOut(QWidget* content, QWidget* home, QVBoxLayout* homeLayout)
    : QObject(home)
    , m_content(content)
    , m_home(home)
    , m_homeLayout(homeLayout)
    , m_placeholder(new QWidget(home))
    , m_action(new QAction(tr("Open in Window"), this))
{
    m_action->setObjectName(QStringLiteral("graphPopOutAction"));
    m_action->setCheckable(true);
    m_action->setToolTip(tr("Show the graph in a window of its own, with room to read it"));
    connect(m_action, &QAction::toggled, this, &GraphPopOut::setPoppedOut);

    m_placeholder->setObjectName(QStringLiteral("graphPopOutPlaceholder"));
    auto* text = new QLabel(tr("The graph is open in its own window."), m_placeholder);
    auto* raise = new QPushButton(tr("Show Window"), m_placeholder);
    connect(raise, &QPushButton::clicked, this, [this] {
        m_window->raise();
        m_window->activateWindow();
    });
    auto* back = new QPushButton(tr("Bring Back Here"), m_placeholder);
    back->setObjectName(QStringLiteral("graphBringBackButton"));
    connect(back, &QPushButton::clicked, this, [this] { setPoppedOut(false); });
    auto* row = new QHBoxLayout;
    row->addStretch();
    row->addWidget(raise);
    row->addWidget(back);
    row->addStretch();
    auto* layout = new QVBoxLayout(m_placeholder);
    layout->addStretch();
    layout->addWidget(text, 0, Qt::AlignHCenter);
    layout->addLayout(row);
    layout->addStretch();
    m_placeholder->hide();
    m_homeLayout->addWidget(m_placeholder, 1);
}

void GraphPopOut::setTitle(const QString& title)
{
    m_title = title;
    if (m_window) {
        m_window->setWindowTitle(title);
    }
}

void GraphPopOut::createWindow()
{
    m_window = new QWidget(m_home, Qt::Window);
    m_window->setObjectName(QStringLiteral("graphWindow"));
    m_window->setWindowTitle(m_title);
    auto* layout = new QVBoxLayout(m_window);
    layout->setContentsMargins(6, 6, 6, 6);
    m_window->installEventFilter(this);
    // Most of the screen the main window is on: the graph is what the user opened the window for.
    const QRect screen = m_home->screen()->availableGeometry();
    const QSize size = (QSizeF(screen.size()) * kWindowShareOfScreen).toSize();
    m_window->setGeometry(QRect(screen.center() - QPoint(size.width() / 2, size.height() / 2), size));
}

void GraphPopOut::setPoppedOut(bool out)
{
    if (out == m_out) {
        return;
    }
    m_out = out;
    {
        const QSignalBlocker blocker(m_action);
        m_action->setChecked(out);
    }
    m_action->setText(out ? tr("Back to Results Panel") : tr("Open in Window"));
    if (out) {
        if (!m_window) {
            createWindow();
        }
        m_window->layout()->addWidget(m_content); // reparents
        m_placeholder->show();
        m_window->show();
        m_window->raise();
        m_window->activateWindow();
    } else {
        m_homeLayout->insertWidget(0, m_content, 1);
        m_placeholder->hide();
        m_window->hide();
    }
    m_content->show();
}

bool GraphPopOut::eventFilter(QObject* watched, QEvent* event)
{
    // Closing the window (its title bar, Alt+F4) hands the contents back to the panel.
    if (watched == m_window && event->type() == QEvent::Close) {
        setPoppedOut(false);
    }
    return QObject::eventFilter(watched, event);
}

} // namespace rapid::widgets

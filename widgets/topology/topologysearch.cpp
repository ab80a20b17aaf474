// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologysearch.h"

#include "common/problemcolor.h"
#include "topology/linkitem.h"
#include "topology/topologyitems.h"
#include "topology/topologyscene.h"
#include "topology/topologyview.h"

#include "network/topology.h"

#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QVBoxLayout>

#include <stdexcept>

namespace rapid::widgets {

namespace {

/// A found item is shown at least this large, so that its label can be read.
constexpr double kFoundZoom = 1.0;

} // namespace

TopologySearch::TopologySearch(TopologyView* view, QWidget* parent)
    : QWidget(parent)
    , m_view(view)
    , m_field(new QLineEdit(this))
    , m_message(new QLabel(this))
{
    setObjectName(QStringLiteral("topologySearch"));
    m_field->setObjectName(QStringLiteral("topologySearchField"));
    m_field->setPlaceholderText(tr("Find a GPU or link id"));
    m_field->setClearButtonEnabled(true);
    m_field->setToolTip(tr("A GPU (\"12\", \"gpu 12\") or a link id (\"nvlink@1:1-s1.0\"); Enter shows it."));
    m_message->setObjectName(QStringLiteral("topologySearchMessage"));
    m_message->setWordWrap(true);
    m_message->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_field);
    layout->addWidget(m_message);
    connect(m_field, &QLineEdit::returnPressed, this, [this] { find(m_field->text()); });
    connect(m_field, &QLineEdit::textEdited, m_message, &QLabel::hide); // the message was about the old text
}

bool TopologySearch::find(const QString& text)
{
    m_message->hide();
    m_view->topologyScene()->setHighlightedNode(-1);
    const QString wanted = text.trimmed();
    if (wanted.isEmpty()) {
        return false;
    }
    if (!m_view->topologyScene()->topology()) {
        showProblem(tr("No network is drawn."));
        return false;
    }
    static const QRegularExpression gpu(
        QStringLiteral("^(?:gpu|rank)?\\s*(\\d+)$"), QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = gpu.match(wanted);
    if (match.hasMatch()) {
        bool ok = false;
        const int index = match.captured(1).toInt(&ok);
        return findGpu(ok ? index : -1);
    }
    return findLink(wanted);
}

bool TopologySearch::findGpu(int gpu)
{
    TopologyScene* scene = m_view->topologyScene();
    const int count = scene->topology()->gpuCount();
    if (gpu < 0 || gpu >= count) {
        showProblem(tr("No GPU %1: the network has GPUs 0–%2.").arg(gpu).arg(count - 1));
        return false;
    }
    for (NodeItem* node : scene->nodeItems()) {
        if (!node->isSwitch() && node->nodeIndex() == gpu) { // GPUs come first, so a GPU's node index is its number
            scene->setHighlightedNode(gpu);
            m_view->setZoom(std::max(m_view->zoom(), kFoundZoom));
            m_view->centerOn(node);
            return true;
        }
    }
    showProblem(tr("GPU %1 is not drawn: a network this large is drawn in part (see the counts).").arg(gpu));
    return false;
}

bool TopologySearch::findLink(const QString& id)
{
    TopologyScene* scene = m_view->topologyScene();
    const network::Topology& topology = *scene->topology();
    int directed = -1;
    try {
        directed = topology.findLink(id.toStdString());
    } catch (const std::invalid_argument& error) {
        showProblem(tr("Not a GPU or a link id: %1").arg(QString::fromUtf8(error.what())));
        return false;
    }
    if (directed < 0) {
        showProblem(tr("No link %1 in this network.").arg(id));
        return false;
    }
    // The drawn item carries the canonical id (lower end first), whichever way round it was typed.
    const QString canonical = QString::fromStdString(topology.linkId(directed / 2 * 2));
    LinkItem* link = scene->linkItem(canonical);
    if (!link) {
        showProblem(tr("Link %1 is not drawn: a network this large is drawn in part (see the counts).").arg(canonical));
        return false;
    }
    scene->selectLinks({ canonical });
    m_view->setZoom(std::max(m_view->zoom(), kFoundZoom));
    m_view->centerOn(link->pointAt(0.5));
    return true;
}

void TopologySearch::showProblem(const QString& text)
{
    QPalette colours = m_message->palette();
    colours.setColor(QPalette::WindowText, problemColor(palette()));
    m_message->setPalette(colours);
    m_message->setText(text);
    m_message->show();
}

} // namespace rapid::widgets

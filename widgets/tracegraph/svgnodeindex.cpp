// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/svgnodeindex.h"

#include <QStringView>
#include <QSvgRenderer>
#include <QTransform>
#include <QXmlStreamReader>

#include <optional>
#include <utility>

namespace rapid::widgets {

namespace {

std::optional<std::uint64_t> idFromTitle(QStringView title)
{
    if (title.size() < 2 || title.front() != u'n') {
        return std::nullopt;
    }
    bool ok = false;
    const qulonglong id = title.mid(1).toULongLong(&ok);
    return ok ? std::optional<std::uint64_t>(id) : std::nullopt;
}

/// (element id, node id) of every node group, read with a streaming parser: QSvgRenderer can give bounds by element
/// id but cannot list elements or read titles.
std::vector<std::pair<QString, std::uint64_t>> nodeElements(const QByteArray& svg)
{
    std::vector<std::pair<QString, std::uint64_t>> elements;
    QXmlStreamReader xml(svg);
    QString pendingElement; // a node group whose <title> has not been read yet
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) {
            continue;
        }
        if (xml.name() == u"g") {
            const QXmlStreamAttributes attributes = xml.attributes();
            pendingElement = attributes.value(QLatin1String("class")) == u"node"
                ? attributes.value(QLatin1String("id")).toString()
                : QString();
        } else if (xml.name() == u"title" && !pendingElement.isEmpty()) {
            if (const auto id = idFromTitle(xml.readElementText())) {
                elements.emplace_back(pendingElement, *id);
            }
            pendingElement.clear();
        }
    }
    return elements;
}

} // namespace

SvgNodeIndex indexSvgNodes(const QByteArray& svg)
{
    SvgNodeIndex index;
    QSvgRenderer renderer(svg);
    if (!renderer.isValid()) {
        return index;
    }
    index.size = renderer.defaultSize();
    // render() maps the view box onto the target rectangle; the items of the view do the same.
    const QRectF viewBox = renderer.viewBoxF();
    if (viewBox.isEmpty()) {
        return index;
    }
    QTransform toItem;
    toItem.scale(index.size.width() / viewBox.width(), index.size.height() / viewBox.height());
    toItem.translate(-viewBox.left(), -viewBox.top());
    for (const auto& [element, id] : nodeElements(svg)) {
        if (!renderer.elementExists(element)) {
            continue;
        }
        // boundsOnElement() ignores the transforms of the enclosing groups (Graphviz translates the whole graph).
        const QRectF local = renderer.transformForElement(element).mapRect(renderer.boundsOnElement(element));
        index.nodes.push_back({ id, toItem.mapRect(local) });
    }
    return index;
}

} // namespace rapid::widgets

// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/figurestylepresets.h"

#include "common/plotstyle.h"

#include "config/diagnostic.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace rapid::widgets {

namespace {

const QString kPresetFolder = QStringLiteral(":/rapid/figure-styles");

std::optional<QByteArray> readBytes(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return std::nullopt;
    }
    return file.readAll();
}

} // namespace

QStringList FigureStylePresets::names()
{
    PlotStyle::standard(); // registers the compiled-in resources of the static library
    QStringList found;
    for (const QFileInfo& info : QDir(kPresetFolder).entryInfoList({ QStringLiteral("*.yaml") }, QDir::Files)) {
        found.append(info.completeBaseName());
    }
    found.sort();
    if (found.removeOne(defaultName())) {
        found.prepend(defaultName());
    }
    return found;
}

QString FigureStylePresets::defaultName()
{
    return QStringLiteral("paper-column");
}

std::optional<config::FigureStyle> FigureStylePresets::preset(const QString& name)
{
    if (!names().contains(name)) {
        return std::nullopt;
    }
    const QString path = kPresetFolder + QLatin1Char('/') + name + QStringLiteral(".yaml");
    const std::optional<QByteArray> text = readBytes(path);
    if (!text) {
        return std::nullopt;
    }
    return config::readFigureStyle(text->toStdString(), "figure-styles/" + name.toStdString() + ".yaml");
}

config::FigureStyle FigureStylePresets::load(const QString& nameOrPath)
{
    if (std::optional<config::FigureStyle> style = preset(nameOrPath)) {
        return *style;
    }
    const std::optional<QByteArray> text = readBytes(nameOrPath);
    if (!text || QFileInfo(nameOrPath).isDir()) {
        throw config::ConfigError({ config::Diagnostic { { nameOrPath.toStdString(), 0, 0 }, {},
            "no such figure style preset or style file (presets: " + names().join(QStringLiteral(", ")).toStdString()
                + ")" } });
    }
    return config::readFigureStyle(text->toStdString(), nameOrPath.toStdString());
}

} // namespace rapid::widgets

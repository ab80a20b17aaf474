// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/diagnosticwording.h"

#include "editors/documentkind.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace rapid::widgets {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("rapid::widgets::DiagnosticWording", text);
}

/// The YAML tab's name of @p kind.
QString documentTitle(DocumentKind kind)
{
    switch (kind) {
    case DocumentKind::Model:
        return tr("Model");
    case DocumentKind::Hardware:
        return tr("Hardware");
    case DocumentKind::Run:
        break;
    }
    return tr("Run");
}

} // namespace

QString DiagnosticWording::message(const std::string& text)
{
    QString result = QString::fromStdString(text);
    // "--set a.b[c].d=N" up to a space, a closing parenthesis or the end.
    static const QRegularExpression setOption(QStringLiteral(R"(--set ([^\s=]+)=([^\s)]+))"));
    result.replace(setOption, tr("set \\1 to \\2 (Forms or YAML tab)"));
    return result;
}

QString DiagnosticWording::line(const config::Diagnostic& diagnostic)
{
    QString place;
    for (DocumentKind kind : kAllDocumentKinds) {
        if (diagnostic.location.source == rootKeyOf(kind).toStdString()) {
            const QString document = documentTitle(kind);
            place = diagnostic.location.line > 0 ? tr("%1 YAML, line %2").arg(document).arg(diagnostic.location.line)
                                                 : tr("%1 YAML").arg(document);
        }
    }
    if (place.isEmpty() && !diagnostic.location.source.empty()) {
        place = QString::fromStdString(diagnostic.location.source);
        if (diagnostic.location.line > 0) {
            place += tr(", line %1").arg(diagnostic.location.line);
        }
    }
    QString text = message(diagnostic.message);
    if (!diagnostic.keyPath.empty()) {
        text = QString::fromStdString(diagnostic.keyPath) + QStringLiteral(": ") + text;
    }
    return place.isEmpty() ? text : place + QStringLiteral(": ") + text;
}

} // namespace rapid::widgets

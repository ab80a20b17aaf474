// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <array>

namespace rapid::widgets {

/// The three documents of a workspace, in the order the workbench shows them.
enum class DocumentKind { Model, Hardware, Run };

constexpr std::array<DocumentKind, 3> kAllDocumentKinds { DocumentKind::Model, DocumentKind::Hardware,
    DocumentKind::Run };

/// The document's root key ("model"), which is also the first step of every key path in it and the source name
/// that diagnostics about its editor text carry.
inline QString rootKeyOf(DocumentKind kind)
{
    switch (kind) {
    case DocumentKind::Model:
        return QStringLiteral("model");
    case DocumentKind::Hardware:
        return QStringLiteral("hardware");
    case DocumentKind::Run:
        return QStringLiteral("run");
    }
    return {};
}

/// The document a key path ("run.parallelism.tp") belongs to, by its first step; Run when unknown.
inline DocumentKind documentOfKeyPath(const QString& keyPath)
{
    for (DocumentKind kind : kAllDocumentKinds) {
        const QString root = rootKeyOf(kind);
        if (keyPath == root || keyPath.startsWith(root + QLatin1Char('.'))) {
            return kind;
        }
    }
    return DocumentKind::Run;
}

} // namespace rapid::widgets

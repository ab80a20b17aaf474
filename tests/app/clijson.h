// SPDX-License-Identifier: GPL-3.0-or-later
// Runs the `rapid` command line (RAPID_CLI_PATH) with --json and returns its JSON result, for the tests that check a
// prediction against a published measurement.
#pragma once

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

namespace rapid::test {

/// `rapid` with @p arguments and `--json FILE`: the file's object, or an empty object (the error printed) when the
/// command fails or writes nothing.
inline QJsonObject runCliJson(QStringList arguments)
{
    QTemporaryDir dir;
    if (!dir.isValid()) {
        return {};
    }
    const QString json = dir.filePath(QStringLiteral("run.json"));
    arguments << QStringLiteral("--json") << json;
    QProcess process;
    process.start(QStringLiteral(RAPID_CLI_PATH), arguments);
    if (!process.waitForFinished(60000) || process.exitCode() != 0) {
        qWarning("%s", process.readAllStandardError().constData());
        return {};
    }
    QFile file(json);
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(file.readAll()).object();
}

} // namespace rapid::test

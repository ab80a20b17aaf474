// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/distinctlabels.h"

#include <algorithm>

namespace rapid::widgets {

namespace {

const QChar kEllipsis(0x2026);

/// The longest head of @p text, with "…", that @p fits accepts, and how many characters of @p text it shows.
std::pair<QString, qsizetype> cutAtEnd(const QString& text, const std::function<bool(const QString&)>& fits)
{
    for (qsizetype kept = text.size() - 1; kept > 0; --kept) {
        const QString candidate = text.left(kept).trimmed() + kEllipsis;
        if (fits(candidate)) {
            return { candidate, kept };
        }
    }
    return { QString(kEllipsis), 0 };
}

qsizetype sharedHead(const QString& one, const QString& other)
{
    const qsizetype length = std::min(one.size(), other.size());
    qsizetype at = 0;
    while (at < length && one[at] == other[at]) {
        ++at;
    }
    return at;
}

bool isSeparator(QChar c)
{
    return c.isSpace() || c == QChar(0x00B7); // names join their parts with " · "
}

/// @p label from the start of the word at @p differs on, without the separators before it.
QString differingWords(const QString& label, qsizetype differs)
{
    qsizetype start = differs;
    const bool atBoundary
        = start == 0 || start >= label.size() || isSeparator(label[start - 1]) || isSeparator(label[start]);
    while (!atBoundary && start > 0 && !isSeparator(label[start - 1])) {
        --start;
    }
    while (start < label.size() && isSeparator(label[start])) {
        ++start;
    }
    return label.mid(start);
}

} // namespace

QStringList elideDistinctly(const QStringList& labels, const std::function<bool(const QString&)>& fits)
{
    QStringList shown;
    shown.reserve(labels.size());
    for (const QString& label : labels) {
        if (fits(label)) {
            shown.append(label);
            continue;
        }
        // Where it starts to differ from the label most like it.
        qsizetype differs = 0;
        for (const QString& other : labels) {
            if (other != label) {
                differs = std::max(differs, sharedHead(label, other));
            }
        }
        const auto [cut, kept] = cutAtEnd(label, fits);
        const QString tail = differingWords(label, differs);
        if (differs < kept || tail.isEmpty()) {
            shown.append(cut); // the cut shows the difference already, or there is none to show
            continue;
        }
        QString fitted;
        for (qsizetype head = label.size() - tail.size() - 1; head >= 0 && fitted.isEmpty(); --head) {
            const QString candidate = label.left(head).trimmed() + kEllipsis + tail;
            if (fits(candidate)) {
                fitted = candidate;
            }
        }
        if (fitted.isEmpty()) { // the differing words alone are too long: their head
            fitted = kEllipsis + cutAtEnd(tail, [&](const QString& text) { return fits(kEllipsis + text); }).first;
        }
        shown.append(fitted);
    }
    return shown;
}

QStringList elideDistinctly(const QStringList& labels, qsizetype longest)
{
    return elideDistinctly(labels, [longest](const QString& text) { return text.size() <= longest; });
}

} // namespace rapid::widgets

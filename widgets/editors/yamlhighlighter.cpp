// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/yamlhighlighter.h"

#include <QPalette>

namespace rapid::widgets {

namespace {

QTextCharFormat makeFormat(const QColor& colour, bool bold = false, bool italic = false)
{
    QTextCharFormat result;
    result.setForeground(colour);
    if (bold) {
        result.setFontWeight(QFont::Bold);
    }
    result.setFontItalic(italic);
    return result;
}

/// Where a comment starts: '#' at the line start or after a blank, outside quotes.
qsizetype commentStart(const QString& text)
{
    QChar quote;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (!quote.isNull()) {
            if (c == quote) {
                quote = QChar();
            }
        } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            quote = c;
        } else if (c == QLatin1Char('#') && (i == 0 || text.at(i - 1).isSpace())) {
            return i;
        }
    }
    return -1;
}

} // namespace

YamlHighlighter::YamlHighlighter(QTextDocument* document, const QPalette& palette)
    : QSyntaxHighlighter(document)
    , m_keyPattern(QStringLiteral(R"(^\s*(?:-\s+)?([A-Za-z_][\w.-]*)\s*:(?=\s|$))"))
    // A number is a whole value or a flow-list item, not the digits inside "Llama-3.1-70B".
    , m_numberPattern(QStringLiteral(R"((?<=^|[\s\[,{])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?=\s*$|\s*[,\]}]))"))
    , m_literalPattern(QStringLiteral(R"(\b(?:true|false|null|yes|no)\b)"))
    , m_stringPattern(QStringLiteral(R"("(?:[^"\\]|\\.)*"|'[^']*')"))
{
    const bool dark = palette.color(QPalette::Base).lightnessF() < 0.5;
    m_keyFormat = makeFormat(dark ? QColor(0x7c, 0xb7, 0xff) : QColor(0x1a, 0x4f, 0xa0), true);
    m_commentFormat = makeFormat(dark ? QColor(0x8f, 0xa0, 0x8f) : QColor(0x5a, 0x74, 0x5a), false, true);
    m_numberFormat = makeFormat(dark ? QColor(0xf0, 0xb4, 0x6e) : QColor(0xa0, 0x4a, 0x00));
    m_literalFormat = makeFormat(dark ? QColor(0xd0, 0x9c, 0xf0) : QColor(0x7a, 0x2a, 0x9a));
    m_stringFormat = makeFormat(dark ? QColor(0xa5, 0xd6, 0x8f) : QColor(0x2c, 0x7a, 0x2c));
}

void YamlHighlighter::highlightBlock(const QString& text)
{
    const qsizetype comment = commentStart(text);
    const QString code = comment < 0 ? text : text.left(comment);
    qsizetype valueStart = 0;
    if (const auto key = m_keyPattern.match(code); key.hasMatch()) {
        setFormat(key.capturedStart(1), key.capturedLength(1), m_keyFormat);
        valueStart = key.capturedEnd(0);
    }
    const QString value = code.mid(valueStart);
    auto apply = [&](const QRegularExpression& pattern, const QTextCharFormat& style) {
        for (auto it = pattern.globalMatch(value); it.hasNext();) {
            const auto match = it.next();
            setFormat(valueStart + match.capturedStart(), match.capturedLength(), style);
        }
    };
    apply(m_numberPattern, m_numberFormat);
    apply(m_literalPattern, m_literalFormat);
    apply(m_stringPattern, m_stringFormat);
    if (comment >= 0) {
        setFormat(comment, text.size() - comment, m_commentFormat);
    }
}

} // namespace rapid::widgets

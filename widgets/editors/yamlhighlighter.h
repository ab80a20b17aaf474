// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace rapid::widgets {

/// Colours YAML keys, comments, numbers, booleans and quoted strings, line by line (the configs use no multi-line
/// scalars). Colours are picked for the palette's lightness so they stay legible in dark mode.
class YamlHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit YamlHighlighter(QTextDocument* document, const QPalette& palette);

protected:
    void highlightBlock(const QString& text) override;

private:
    QTextCharFormat m_keyFormat;
    QTextCharFormat m_commentFormat;
    QTextCharFormat m_numberFormat;
    QTextCharFormat m_literalFormat;
    QTextCharFormat m_stringFormat;
    QRegularExpression m_keyPattern;
    QRegularExpression m_numberPattern;
    QRegularExpression m_literalPattern;
    QRegularExpression m_stringPattern;
};

} // namespace rapid::widgets

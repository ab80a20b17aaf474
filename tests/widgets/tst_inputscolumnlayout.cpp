// SPDX-License-Identifier: GPL-3.0-or-later
// InputsColumnLayout (the Serving and Resilience tabs' arrangement) on a bare panel: the inputs column
// beside the results exactly while the panel holds the column (270 px) and the results' narrowest width, above them
// otherwise, capped at two fifths of the height and at what the results' minimum leaves; tableHeadersWidth against
// the header lines measured by hand; CaptionedFigure's minimum as the figure's plus its caption's lines.
#include "common/inputscolumnlayout.h"

#include "common/captionedfigure.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QTableWidget>
#include <QTest>
#include <QVBoxLayout>

using namespace rapid::widgets;

class TstInputsColumnLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theColumnStandsBesideExactlyWhileBothFit()
    {
        QWidget panel;
        // A form in a scroll area, as the panels have it: its rows scroll when the column is short.
        auto* rows = new QWidget;
        auto* form = new QVBoxLayout(rows);
        for (int row = 0; row < 30; ++row) {
            form->addWidget(new QLabel(QStringLiteral("input %1").arg(row)));
        }
        auto* inputs = new QScrollArea;
        inputs->setWidget(rows);
        inputs->setWidgetResizable(true);
        auto* results = new QLabel(QStringLiteral("results"));
        constexpr int kResultsMinimum = 400;
        auto* layout = new InputsColumnLayout(&panel, inputs, results, [] { return kResultsMinimum; });
        // By hand: the margins (4 + 4), the spacing between the two, the column and the results.
        const int threshold = 8 + layout->spacing() + InputsColumnLayout::kInputsWidth + kResultsMinimum;
        QCOMPARE(layout->besideWidth(), threshold);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));

        panel.resize(threshold, 600);
        QTRY_VERIFY(layout->inputsBeside());
        QTRY_COMPARE(inputs->width(), InputsColumnLayout::kInputsWidth);
        QVERIFY(results->x() >= inputs->x() + inputs->width());
        QVERIFY(results->width() >= kResultsMinimum);

        panel.resize(threshold - 1, 600);
        QTRY_VERIFY(!layout->inputsBeside());
        // Above: both span the panel inside its margins, the inputs at most two fifths of its height.
        QTRY_COMPARE(inputs->width(), threshold - 1 - 8);
        QCOMPARE(results->width(), threshold - 1 - 8);
        QVERIFY(inputs->height() <= 600 * 2 / 5);
        QVERIFY(results->y() >= inputs->y() + inputs->height());

        panel.resize(threshold + 200, 600);
        QTRY_VERIFY(layout->inputsBeside());
        QTRY_COMPARE(inputs->width(), InputsColumnLayout::kInputsWidth);
        QCOMPARE(inputs->maximumHeight(), QWIDGETSIZE_MAX);
    }

    void headersSetTheTablesNarrowestWidth()
    {
        QTableWidget table(0, 3);
        table.setHorizontalHeaderLabels({ QStringLiteral("k"), QStringLiteral("TTFT\np50 ms"), QStringLiteral("SLO") });
        const QHeaderView* header = table.horizontalHeader();
        const QFontMetrics metrics(header->font());
        const int margins = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) + 1;
        const int k = metrics.horizontalAdvance(QStringLiteral("k")) + margins;
        const int p50 = std::max(metrics.horizontalAdvance(QStringLiteral("TTFT")),
                            metrics.horizontalAdvance(QStringLiteral("p50 ms")))
            + margins;
        const int slo = metrics.horizontalAdvance(QStringLiteral("SLO")) + margins;
        const int frame = 2 * table.frameWidth();
        // Columns sized each to its own: the sum; stretched to equal widths: the widest, three times.
        table.horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        QCOMPARE(tableHeadersWidth(&table), k + p50 + slo + frame);
        table.horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
        QCOMPARE(tableHeadersWidth(&table), 3 * std::max({ k, p50, slo }) + frame);
    }

    void stackedTheResultsKeepTheirMinimum()
    {
        // Inputs above results that need 300 px of a 500-px panel: the inputs get what is left, 500 - 8 (margins) -
        // spacing - 300, less than the two-fifths cap (200).
        QWidget panel;
        auto* inputs = new QScrollArea;
        auto* rows = new QWidget;
        auto* form = new QVBoxLayout(rows);
        for (int row = 0; row < 30; ++row) {
            form->addWidget(new QLabel(QStringLiteral("input %1").arg(row)));
        }
        inputs->setWidget(rows);
        inputs->setWidgetResizable(true);
        auto* results = new QWidget;
        results->setMinimumSize(100, 300);
        auto* layout = new InputsColumnLayout(&panel, inputs, results, [] { return 400; });
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.resize(400, 500);
        QTRY_VERIFY(!layout->inputsBeside());
        const int left = 500 - 8 - layout->spacing() - 300;
        QVERIFY(left < 500 * 2 / 5);
        QTRY_COMPARE(inputs->maximumHeight(), std::max(left, inputs->minimumSizeHint().height()));
        QTRY_VERIFY(results->height() >= 300);
    }

    void aCaptionedFigureAsksForItsCaptionsLines()
    {
        auto* figure = new QWidget;
        figure->setMinimumSize(120, 80);
        auto* caption = new QLabel(QStringLiteral("one two three four five six seven eight nine ten eleven twelve"));
        CaptionedFigure captioned(figure, caption);
        captioned.resize(200, 300);
        captioned.show();
        QVERIFY(QTest::qWaitForWindowExposed(&captioned));
        // The figure's minimum, the 4-px gap and the caption's lines at the width it has.
        QCOMPARE(captioned.minimumSizeHint().height(), 80 + 4 + caption->heightForWidth(200));
        QCOMPARE(caption->geometry(), QRect(0, 300 - caption->heightForWidth(200), 200, caption->heightForWidth(200)));
        QCOMPARE(figure->geometry(), QRect(0, 0, 200, 300 - 4 - caption->heightForWidth(200)));
        // Narrower: more lines, a taller minimum.
        captioned.resize(130, 300);
        QTRY_VERIFY(caption->heightForWidth(130) > caption->heightForWidth(200));
        QCOMPARE(captioned.minimumSizeHint().height(), 80 + 4 + caption->heightForWidth(130));
        // No caption, no gap.
        caption->clear();
        QCOMPARE(captioned.minimumSizeHint().height(), 80);
    }
};

QTEST_MAIN(TstInputsColumnLayout)
#include "tst_inputscolumnlayout.moc"

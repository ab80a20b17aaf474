// SPDX-License-Identifier: GPL-3.0-or-later
// FlowLayout (the Sweep tab's rows of buttons and check boxes) on a bare panel, against positions worked out by hand:
// three boxes of 100 x 20, 80 x 30 and 60 x 20 px with 10 px between them share one line at 300 px, wrap the third at
// 200 px and the second at 150 px, take a line each at 90 px; items are centred on their line; an expanding label
// takes the rest of its line; a hidden widget takes no room; the narrowest the row asks for is its widest box.
#include "common/flowlayout.h"

#include <QLabel>
#include <QTest>

using namespace rapid::widgets;

namespace {

QWidget* box(int width, int height)
{
    auto* widget = new QWidget;
    widget->setFixedSize(width, height);
    return widget;
}

} // namespace

class TstFlowLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void linesWrapWhereTheWidthRunsOut()
    {
        QWidget panel;
        auto* flow = new FlowLayout(&panel);
        flow->setContentsMargins(0, 0, 0, 0);
        flow->setSpacing(10);
        QWidget* a = box(100, 20);
        QWidget* b = box(80, 30);
        QWidget* c = box(60, 20);
        flow->addWidget(a);
        flow->addWidget(b);
        flow->addWidget(c);

        // One line: 100 + 10 + 80 + 10 + 60 = 260 px, as tall as its tallest box.
        QCOMPARE(flow->sizeHint(), QSize(260, 30));
        QCOMPARE(flow->minimumSize(), QSize(100, 30));
        QCOMPARE(flow->heightForWidth(300), 30);
        // 100 + 10 + 80 = 190 fits 200, the third does not: lines of 30 and 20 px, 10 px apart.
        QCOMPARE(flow->heightForWidth(200), 60);
        // At 150 the second goes down and the third joins it: 80 + 10 + 60 = 150 exactly.
        QCOMPARE(flow->heightForWidth(150), 20 + 10 + 30);
        // At 90 every box has a line; the first, wider than the line, is narrowed to it.
        QCOMPARE(flow->heightForWidth(90), 20 + 10 + 30 + 10 + 20);

        flow->setGeometry(QRect(0, 0, 300, 30));
        QCOMPARE(flow->lineCount(), 1);
        // Centred on the 30-px line: the 20-px boxes 5 px down.
        QCOMPARE(a->geometry(), QRect(0, 5, 100, 20));
        QCOMPARE(b->geometry(), QRect(110, 0, 80, 30));
        QCOMPARE(c->geometry(), QRect(200, 5, 60, 20));

        flow->setGeometry(QRect(0, 0, 150, 60));
        QCOMPARE(flow->lineCount(), 2);
        QCOMPARE(a->geometry(), QRect(0, 0, 100, 20));
        QCOMPARE(b->geometry(), QRect(0, 30, 80, 30));
        QCOMPARE(c->geometry(), QRect(90, 35, 60, 20));

        // A hidden box takes no room: the first line then holds the other two (100 + 10 + 60 = 170 <= 200).
        b->hide();
        QCOMPARE(flow->heightForWidth(200), 20);
    }

    void anExpandingLabelTakesTheRestOfItsLine()
    {
        QWidget panel;
        auto* flow = new FlowLayout(&panel);
        flow->setContentsMargins(4, 4, 4, 4);
        flow->setSpacing(6);
        QWidget* button = box(100, 22);
        auto* label = new QLabel(QStringLiteral("Copied"));
        label->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
        flow->addWidget(button);
        flow->addWidget(label);
        flow->setGeometry(QRect(0, 0, 400, 40));
        QCOMPARE(flow->lineCount(), 1);
        // The label starts after the button and the gap (4 + 100 + 6) and ends at the right margin (400 - 4).
        QCOMPARE(label->geometry().left(), 110);
        QCOMPARE(label->geometry().right(), 395);
        // The margins count in every measure: 4 + 22 + 4.
        QCOMPARE(flow->heightForWidth(400), 30);
        QCOMPARE(flow->minimumSize().width(), 8 + std::max(100, label->minimumSizeHint().width()));
    }

    void aWindowOfTheRowShrinksToItsWidestItem()
    {
        // In a real window: the row does not hold the window at its one-line width.
        QWidget panel;
        auto* flow = new FlowLayout(&panel);
        flow->setContentsMargins(0, 0, 0, 0);
        flow->setSpacing(10);
        for (int i = 0; i < 5; ++i) {
            flow->addWidget(box(100, 20));
        }
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.resize(230, 200);
        // Two boxes per line (100 + 10 + 100 = 210 <= 230): three lines.
        QTRY_COMPARE(flow->lineCount(), 3);
        QCOMPARE(panel.width(), 230);
        QVERIFY(panel.minimumSizeHint().width() <= 100);
    }
};

QTEST_MAIN(TstFlowLayout)
#include "tst_flowlayout.moc"

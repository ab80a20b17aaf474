// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QBoxLayout>

#include <functional>

class QTableView;

namespace rapid::widgets {

/// The layout of a job panel's inputs column and its results (the Serving tab). While the panel
/// holds both, the column stands at a fixed width beside the results; in a narrower panel (the docked tab of a
/// 1,000 x 700 window) it goes above them, at most two fifths of the panel's height (its form scrolls), and the
/// results take the whole width. Decided again on every geometry change, so resizing the window or a dock switches
/// back and forth.
class InputsColumnLayout : public QBoxLayout {
public:
    /// The inputs column's width beside the results.
    static constexpr int kInputsWidth = 270;
    /// Where the inputs go: before the results (left of them, or above when stacked: a form to fill before running)
    /// or after them (right, or below: the controls of a drawing that is the page's subject, the Topology tab).
    enum class InputsSide { Leading, Trailing };

    /// Lays out @p inputs and @p results on @p panel; @p resultsMinimumWidth gives the narrowest the results may be
    /// (a table's columns at their headers' width, a chart's title) when the decision is made.
    InputsColumnLayout(QWidget* panel, QWidget* inputs, QWidget* results, std::function<int()> resultsMinimumWidth,
        InputsSide side = InputsSide::Leading);

    bool inputsBeside() const
    {
        return direction() == QBoxLayout::LeftToRight || direction() == QBoxLayout::RightToLeft;
    }
    /// The narrowest panel that holds the column beside the results.
    int besideWidth() const;
    void setGeometry(const QRect& rect) override;
    /// No wider than the inputs above the results need: beside, the column and the results' minimum would otherwise
    /// hold the panel wide enough to stay beside, pushing the window's docks off the screen instead of stacking.
    QSize minimumSize() const override;
    /// None: a word-wrapped status line in the inputs would make the whole panel height-for-width, and QBoxLayout
    /// answers that from the results' preferred height, which a scroll area holding the panel (the Resilience pages)
    /// then treats as needed and scrolls a page that fits. The minimum sizes decide instead.
    bool hasHeightForWidth() const override { return false; }

private:
    void arrange(QSize panel);

    QWidget* m_inputs;
    QWidget* m_results;
    std::function<int()> m_resultsMinimumWidth;
    InputsSide m_side;
    /// Whether arrange() capped the inputs' height (stacked): only then does going beside lift the cap, so a
    /// maximum height set by the page itself survives while the column stays beside.
    bool m_heightCapped = false;
};

/// The narrowest @p table shows every header line whole: with stretched columns (QHeaderView::Stretch: equal widths)
/// the widest header line times the columns, else the sum of each column's widest header line; plus the header's
/// margins and the frame. A table that does not sort leaves no room for an indicator.
int tableHeadersWidth(const QTableView* table);

} // namespace rapid::widgets

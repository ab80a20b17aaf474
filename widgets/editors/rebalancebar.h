// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QWidget>

#include <optional>
#include <utility>

class QLabel;
class QPushButton;

namespace rapid::widgets {

class WorkspaceDocument;

/// What rebalancing the parallel degrees would write: the form edits and a sentence saying why and what.
struct RebalanceOffer {
    QString text; ///< "tp 4 × pp 4 × cp 1 × dp 2 = 32 of the hardware's 64 GPUs"
    QString action; ///< "Set dp to 4 and virtual stages to 3"
    QList<std::pair<QString, QString>> values; ///< key path and YAML value, in the order to write them
};

/// After tp, pp or cp changed so the degrees no longer multiply to the hardware's GPUs, the dp that restores the
/// count, with the virtual stages (and schedule) and mapping adapted the way a sweep's splits are (adaptSplits),
/// checked by loading and placing the result before it is offered. Nothing when the count holds, no dp fits, or
/// the result would not load.
std::optional<RebalanceOffer> rebalanceOffer(const WorkspaceDocument& document);

/// A bar over the forms that makes the offer: the sentence and one button, applied as one undo step.
class RebalanceBar : public QWidget {
    Q_OBJECT
public:
    explicit RebalanceBar(WorkspaceDocument* document, QWidget* parent = nullptr);

    QPushButton* applyButton() const { return m_apply; }
    QLabel* textLabel() const { return m_text; }

private:
    void refresh();
    void apply();

    WorkspaceDocument* m_document;
    QLabel* m_text;
    QPushButton* m_apply;
    std::optional<RebalanceOffer> m_offer;
};

} // namespace rapid::widgets

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;

namespace rapid::widgets {

class TopologyView;

/// Finds a GPU or a link in the topology view: "12", "gpu 12" or "rank 12" centres GPU 12 and rings it; a link id
/// ("nvlink@1:1-s1.0", either orientation) centres the link and selects it, so that the health editor shows it. What
/// cannot be found (no such GPU or link, a malformed id, a part of a large network that is not drawn) is said below the
/// field, in the problem colour.
class TopologySearch : public QWidget {
    Q_OBJECT
public:
    explicit TopologySearch(TopologyView* view, QWidget* parent = nullptr);

    QLineEdit* field() const { return m_field; }
    QLabel* messageLabel() const { return m_message; }

    /// Looks @p text up and shows the result; false (with the reason shown) when nothing was found.
    bool find(const QString& text);

private:
    bool findGpu(int gpu);
    bool findLink(const QString& id);
    void showProblem(const QString& text);

    TopologyView* m_view;
    QLineEdit* m_field;
    QLabel* m_message;
};

} // namespace rapid::widgets

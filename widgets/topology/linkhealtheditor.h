// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <QWidget>

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;

namespace rapid::widgets {

/// The side panel of the topology view: the selected links and their health, a slider (0..1 in steps of 0.01) kept
/// in step with a spin box, and Apply, Fail and Restore acting on every selected link. It only asks; the owner writes
/// the faults (TopologyPanel), so the edit goes through the document's undo stack.
class LinkHealthEditor : public QWidget {
    Q_OBJECT
public:
    struct Link {
        QString id;
        double health = 1.0;
        bool writable = true; ///< see TopologyScene::isWritable()
    };

    explicit LinkHealthEditor(QWidget* parent = nullptr);

    /// Shows @p links and moves the slider to their lowest health.
    void setLinks(const QList<Link>& links);
    /// Greys everything out with @p reason (no valid configuration to edit); an empty reason enables it again.
    void setBlockedReason(const QString& reason);
    double health() const;
    void setHealth(double health);

    QSlider* slider() const { return m_slider; }
    QDoubleSpinBox* spinBox() const { return m_spin; }
    QPushButton* applyButton() const { return m_apply; }
    QPushButton* failButton() const { return m_fail; }
    QPushButton* restoreButton() const { return m_restore; }
    QLabel* selectionLabel() const { return m_selection; }
    QLabel* noteLabel() const { return m_note; }

Q_SIGNALS:
    /// Apply (the slider's health) or Fail (0) for the writable selected links.
    void healthRequested(double health);
    /// Restore: remove the faults of the writable selected links.
    void restoreRequested();

private:
    void updateState();

    QList<Link> m_links;
    QString m_blockedReason;
    QLabel* m_selection;
    QSlider* m_slider;
    QDoubleSpinBox* m_spin;
    QPushButton* m_apply;
    QPushButton* m_fail;
    QPushButton* m_restore;
    QLabel* m_note;
    bool m_syncing = false;
};

} // namespace rapid::widgets

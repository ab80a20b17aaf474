// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "config/workspacefile.h"
#include "sweep/sweepspace.h"

#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QCheckBox;
class QVBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace rapid::widgets {

/// The axes of a sweep: one "KEY=VALUES" line per axis (sweep::parseSweepAxis syntax: "run.parallelism.tp=1,2,4,8",
/// "run.training.micro_batch=1..8:x2"), each checked as it is typed with the problem shown beside the line, and
/// "parallel splits over tp/pp/dp/cp" (sweep::parallelSplits of the workspace's GPU count, tensor parallelism capped
/// at "max tp"). Empty lines are ignored. The splits axis comes first, as with `rapid sweep --splits`.
class SweepAxesEditor : public QWidget {
    Q_OBJECT
public:
    explicit SweepAxesEditor(QWidget* parent = nullptr);

    /// The axis lines as typed, empty ones included.
    QStringList lines() const;
    void setLines(const QStringList& lines);
    int lineCount() const { return static_cast<int>(m_rows.size()); }
    QLineEdit* lineEdit(int line) const { return m_rows.at(static_cast<size_t>(line)).edit; }
    /// The inline problem of @p line (hidden when the line parses or is empty).
    QLabel* problemLabel(int line) const { return m_rows.at(static_cast<size_t>(line)).problem; }
    /// Adds an empty line and focuses it.
    QLineEdit* addLine();

    QPushButton* addButton() const { return m_add; }
    QCheckBox* splitsCheck() const { return m_splits; }
    /// "tp", "pp", "dp" or "cp".
    QCheckBox* splitAxisCheck(const QString& axis) const;
    QSpinBox* maxTpSpin() const { return m_maxTp; }
    QLabel* splitsProblemLabel() const { return m_splitsProblem; }

    /// The GPUs the splits divide (the workspace's hardware; empty while the workspace is invalid). @p gpusPerNode
    /// becomes the max tp until the user picks one.
    void setHardware(std::optional<int> gpus, int gpusPerNode);
    /// The workspace's scenario (null while it has problems): the splits adapt its mapping and virtual stages.
    void setBase(const config::Scenario* scenario);

    /// The non-empty lines and the splits option, as the workspace file keeps them (maxTp 0 while the largest tp
    /// follows the hardware).
    config::SweepSettings settings() const;
    /// Shows @p settings; one axesChanged at the end.
    void setSettings(const config::SweepSettings& settings);

    /// Whether every line and the splits option are usable.
    bool isValid() const { return m_valid; }
    /// The parsed axes (splits first); meaningful when isValid().
    const std::vector<sweep::SweepAxis>& axes() const { return m_axes; }

Q_SIGNALS:
    /// The axes, their validity or the splits changed.
    void axesChanged();
    /// The user changed a line or the splits option (not setLines, setSettings or setHardware).
    void edited();

private:
    struct Row {
        QWidget* container = nullptr;
        QLineEdit* edit = nullptr;
        QLabel* problem = nullptr;
        QToolButton* remove = nullptr;
    };
    void removeLine(QWidget* container);
    void reparse();
    void showProblem(QLabel* label, const QString& problem);
    void updateSplitsEnabled();

    std::vector<Row> m_rows;
    QVBoxLayout* m_lines;
    QPushButton* m_add;
    QCheckBox* m_splits;
    std::vector<std::pair<QString, QCheckBox*>> m_splitAxes;
    QSpinBox* m_maxTp;
    bool m_maxTpChosen = false;
    QLabel* m_splitsProblem;
    std::optional<int> m_gpus;
    struct BaseRun {
        config::ModelSpec model;
        config::RunSpec run;
    };
    std::optional<BaseRun> m_base;
    std::vector<sweep::SweepAxis> m_axes;
    bool m_valid = true;
};

} // namespace rapid::widgets

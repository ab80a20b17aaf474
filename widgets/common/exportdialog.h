// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/exportoptions.h"

#include <QDialog>
#include <QList>
#include <QPointer>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace rapid::widgets {

/// "Export chart": which chart, format, paper width preset (single or double column), height and DPI, and the file.
/// Gathers choices only; the caller runs ChartExporter, so the dialog can be driven in tests without a file dialog.
class ExportDialog : public QDialog {
    Q_OBJECT
public:
    struct Target {
        QString name;
        QPointer<QWidget> widget;
    };

    explicit ExportDialog(const QList<Target>& targets, int selected, QWidget* parent = nullptr);

    QWidget* selectedWidget() const;
    ExportOptions options() const;
    QString filePath() const;
    void setFilePath(const QString& path);

    QComboBox* formatCombo() const { return m_format; }
    QComboBox* widthCombo() const { return m_width; }
    QSpinBox* dpiSpin() const { return m_dpi; }

private:
    void browse();
    void formatChanged();
    void widthChanged();

    QList<Target> m_targets;
    QComboBox* m_target;
    QComboBox* m_format;
    QComboBox* m_width;
    QDoubleSpinBox* m_height;
    QSpinBox* m_dpi;
    QLineEdit* m_path;
};

} // namespace rapid::widgets

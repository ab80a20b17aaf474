// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/exportoptions.h"

#include <QDialog>
#include <QImage>
#include <QList>
#include <QPointer>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFontComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace rapid::widgets {

/// "Export figure": which chart, its paper style (a preset, width, height, font, title, legend, palette, series
/// names, value axis) with a live preview at paper size, and the file (format, resolution). Gathers choices only;
/// the caller runs ChartExporter, so the dialog can be driven in tests without a file dialog. The format and folder
/// of the last export are remembered (QSettings).
class FigureDialog : public QDialog {
    Q_OBJECT
public:
    struct Target {
        QString name;
        QPointer<QWidget> widget;
    };

    /// @p style: what the fields start from (the workspace's style, the last one used, or the default preset).
    FigureDialog(
        const QList<Target>& targets, int selected, const config::FigureStyle& style, QWidget* parent = nullptr);

    QWidget* selectedWidget() const;
    /// The format and the style the fields describe.
    ExportOptions options() const;
    /// Why the fields describe no valid figure (shown in the dialog, Save disabled), or empty.
    QString problem() const { return m_problemText; }
    QString filePath() const;
    void setFilePath(const QString& path);
    /// "Keep this style with the workspace" is ticked.
    bool keepWithWorkspace() const;
    /// Stores the format and folder of filePath() for the next dialog (the caller does it after a successful export).
    void rememberChoices() const;
    /// Creates filePath()'s folder when it does not exist (a fresh home has no ~/Pictures), before the export writes
    /// into it; @p created gets the folder it created (empty: it existed). False, @p error saying why, when it
    /// cannot.
    bool makeFolder(QString* created, QString* error) const;
    /// The folder a first export goes to: the Pictures folder, even if it does not exist yet as long as it can be
    /// created; otherwise the home folder, or the temporary folder as the last resort.
    static QString defaultFolder();
    /// The preview as last drawn (null until the first one).
    QImage previewImage() const { return m_preview; }
    /// Draws the preview now (the fields do it after a short pause).
    void updatePreview();

    QComboBox* presetCombo() const { return m_preset; }
    QComboBox* formatCombo() const { return m_format; }
    QComboBox* widthCombo() const { return m_width; }
    QDoubleSpinBox* customWidthSpin() const { return m_customWidth; }
    QDoubleSpinBox* fontSizeSpin() const { return m_fontSize; }
    QCheckBox* titleCheck() const { return m_title; }
    QComboBox* legendCombo() const { return m_legend; }
    QComboBox* paletteCombo() const { return m_palette; }
    QTableWidget* seriesTable() const { return m_series; }
    QLineEdit* valueMinEdit() const { return m_valueMin; }
    QLineEdit* valueMaxEdit() const { return m_valueMax; }
    QLineEdit* valueLabelEdit() const { return m_valueLabel; }
    QSpinBox* dpiSpin() const { return m_dpi; }
    QCheckBox* keepCheck() const { return m_keep; }
    QLabel* previewLabel() const { return m_previewLabel; }
    QLabel* problemLabel() const { return m_problemLabel; }
    /// Under the file: its folder does not exist yet (Save creates it), or the Pictures folder could not be used.
    QLabel* folderNote() const { return m_folderNote; }

Q_SIGNALS:
    void previewUpdated();

private:
    void updateFolderNote();
    QWidget* createStyleFields();
    QWidget* createOutputFields();
    void connectFields();
    void setStyle(const config::FigureStyle& style);
    config::FigureStyle style() const;
    void fillSeriesTable();
    void browse();
    void saveStyleFile();
    void formatChanged();
    void schedulePreview();
    /// Range checks of the fields; shows the first problem and disables Save.
    void validate();

    QList<Target> m_targets;
    QComboBox* m_target;
    QComboBox* m_preset;
    QComboBox* m_width;
    QDoubleSpinBox* m_customWidth;
    QDoubleSpinBox* m_height;
    QFontComboBox* m_font;
    QDoubleSpinBox* m_fontSize;
    QCheckBox* m_title;
    QComboBox* m_legend;
    QComboBox* m_palette;
    QTableWidget* m_series;
    QLineEdit* m_valueMin;
    QLineEdit* m_valueMax;
    QLineEdit* m_valueLabel;
    QComboBox* m_format;
    QSpinBox* m_dpi;
    QLineEdit* m_path;
    QCheckBox* m_keep;
    QLabel* m_previewLabel;
    QLabel* m_problemLabel;
    QLabel* m_folderNote;
    QString m_fallbackNote; ///< why the first folder offered is not the Pictures folder
    QPushButton* m_save = nullptr;
    QTimer* m_previewDelay;
    QImage m_preview;
    QString m_problemText;
    bool m_filling = false; ///< fields are being set from a style: one preview at the end, not one per field
};

} // namespace rapid::widgets

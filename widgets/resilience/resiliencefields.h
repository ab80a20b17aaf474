// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "resilience/resilienceinputs.h"

#include "sim/stepbackend.h"

#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace rapid::widgets {

/// A comma-separated list of numbers checked on every keystroke (parseNumberList): a red frame-free message under
/// the field says what is wrong, and validityChanged() lets the page disable Run meanwhile.
class NumberListEdit : public QWidget {
    Q_OBJECT
public:
    NumberListEdit(
        const QString& text, const NumberListRule& rule, const QString& objectName, QWidget* parent = nullptr);

    QLineEdit* lineEdit() const { return m_edit; }
    QLabel* problemLabel() const { return m_problem; }
    /// The values, or nullopt while the text has a problem.
    std::optional<std::vector<double>> values() const;
    bool isValid() const { return values().has_value(); }

Q_SIGNALS:
    void validityChanged();

private:
    void check();

    NumberListRule m_rule;
    QLineEdit* m_edit;
    QLabel* m_problem;
    bool m_valid = true;
};

/// A link class as the lists show it (resilience::LinkClass): its name, its units and links, and whether a study
/// draws from it only when named (a node's NICs, which overlap the GPU-leaf links).
struct LinkClassEntry {
    std::string name;
    int links = 0;
    int units = 0; ///< what fails together: links, or nodes for a node NIC class
    bool optIn = false;
};

/// The network's link classes (resilience::linkClasses) as a checkable list. At first the classes a study draws
/// from by default are checked (every class but the opt-in node NIC classes), as `rapid resilience` without --class.
class LinkClassList : public QWidget {
    Q_OBJECT
public:
    explicit LinkClassList(const QString& objectName, QWidget* parent = nullptr);

    /// Shows @p classes ("name · count links" each); a class shown before keeps its check, a new one is checked
    /// unless it is opt-in. @p problem (why the network has no classes to show) replaces the list's own message.
    void setClasses(const std::vector<LinkClassEntry>& classes, const QString& problem = {});
    /// The checked class names; empty when exactly the default classes are checked (resilience's "every class",
    /// which leaves out the opt-in ones).
    std::vector<std::string> checkedClasses() const;
    /// Checks exactly @p names (empty: the default classes), as checkedClasses would give them back.
    void check(const std::vector<std::string>& names);
    /// Whether at least one class is checked.
    bool isValid() const;
    QListWidget* list() const { return m_list; }

Q_SIGNALS:
    void validityChanged();

private:
    QListWidget* m_list;
    QLabel* m_problem;
};

/// The two backends a study can time its steps on: congestion (the default, contention between flows) and
/// analytical (faster).
QComboBox* createBackendCombo(const QString& objectName, QWidget* parent);
sim::NetworkBackend backendOf(const QComboBox* combo);
/// Selects @p backend in a combo of createBackendCombo.
void chooseBackend(QComboBox* combo, sim::NetworkBackend backend);

} // namespace rapid::widgets

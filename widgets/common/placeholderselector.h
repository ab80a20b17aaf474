// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

namespace rapid::widgets {

/// Lets a click into a spin box that shows its placeholder (its special value text: "not set", "default: 1", "none")
/// be followed by typing. The click puts the cursor inside the placeholder, and digits typed there make no number, so
/// the spin box refused them without a word (seen driving the workbench with xdotool under Xvfb). Installed once on
/// the application, it selects the placeholder when such a spin box takes the focus, once the click has placed the
/// cursor, so what is typed replaces it, as tabbing into the field already did.
class PlaceholderSelector : public QObject {
    Q_OBJECT
public:
    /// Installs the one selector of @p application (idempotent).
    static void install(QObject* application);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit PlaceholderSelector(QObject* parent);
};

} // namespace rapid::widgets

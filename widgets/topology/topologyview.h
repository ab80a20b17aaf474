// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/pannablegraphicsview.h"

namespace rapid::widgets {

class LinkItem;
class TopologyMiniMap;
class TopologyScene;

/// The topology view: shows a TopologyScene, zooms with the wheel around the point under the cursor (or Ctrl++,
/// Ctrl+-, Ctrl+0 to fit), scrolls with Shift+wheel (or a touchpad's sideways swipe), pans by dragging, keeps an
/// overlay (the legend) in its bottom-left corner whatever the zoom, and selects links: a click selects the link under
/// the cursor, Shift+click adds or removes one, a click on empty space clears the selection, Escape too. Until the user
/// zooms or pans, the view keeps the whole network fitted (also when the window is resized or the network changes);
/// fitToView() returns to that.
class TopologyView : public PannableGraphicsView {
    Q_OBJECT
public:
    /// The zoom range of the wheel, the keys and setZoom().
    static constexpr double kMinZoom = 0.02;
    static constexpr double kMaxZoom = 6.0;
    static constexpr double kWheelStep = 1.15; ///< zoom per wheel notch
    static constexpr int kOverlayMargin = 8; ///< pixels between the key (overlay) and the viewport's edges

    explicit TopologyView(TopologyScene* scene, QWidget* parent = nullptr);

    TopologyScene* topologyScene() const { return m_scene; }
    /// Fits the whole network and keeps it fitted until the next zoom or pan.
    void fitToView();
    /// Multiplies the zoom by @p factor (clamped to a sensible range) around the viewport's centre.
    void zoomBy(double factor);
    /// Multiplies the zoom by @p factor (clamped) so that the scene point under @p viewportPos stays under it, as far
    /// as the scroll range allows.
    void zoomAt(double factor, const QPoint& viewportPos);
    /// Sets the zoom (1 = one scene unit per pixel) and stops fitting.
    void setZoom(double zoom);
    double zoom() const;
    bool isFitting() const { return m_fitting; }
    /// The link that a click at @p viewportPos would select: the topmost link within a few pixels, unless a node or
    /// nothing selectable is there.
    LinkItem* linkAt(const QPoint& viewportPos) const;
    /// Shows @p overlay (e.g. the legend) over the bottom-left corner of the viewport, at its size hint, whatever the
    /// zoom or scroll position. A child of the view, not of the viewport: QGraphicsView scrolls the viewport's
    /// children along with the drawing.
    void setOverlay(QWidget* overlay);
    QWidget* overlay() const { return m_overlay; }
    /// The overview over the top-right corner, shown while the view is zoomed in or panned (not while fitting).
    TopologyMiniMap* miniMap() const { return m_miniMap; }

protected:
    void wheelEvent(QWheelEvent* event) override;
    void clicked(const QPoint& viewportPos, Qt::KeyboardModifiers modifiers) override;
    void panStarted() override { setFitting(false); }
    void keyPressEvent(QKeyEvent* event) override;
    /// On a folded tier's glyph: unfolds it; on a switch of an unfolded tier: folds it again.
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    /// Scales the drawing to @p value (clamped to the zoom range) about the viewport's centre and stops fitting.
    void zoomTo(double value);
    void applyFit();
    void placeOverlay();
    /// The key's size in the viewport: its size hint, within the viewport less the margins.
    QSize overlaySize() const;
    bool event(QEvent* event) override;

    TopologyScene* m_scene;
    void setFitting(bool fitting);

    bool m_fitting = true;
    QWidget* m_overlay = nullptr;
    TopologyMiniMap* m_miniMap;
};

} // namespace rapid::widgets

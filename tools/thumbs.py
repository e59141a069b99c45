"""Draw the per-section card pictures in docs/_static/thumbs/.

A lesson without a figure of its own names its section's picture with
``# sphinx_gallery_thumbnail_path = "_static/thumbs/<section>.png"``;
``lesson.png`` is sphinx-gallery's ``default_thumb_file``. Run once after
changing a drawing: ``python tools/thumbs.py``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "docs" / "_static" / "thumbs"
ORANGE, BLUE, GREY = "#ee4c2c", "#3b6ea5", "#6b6b6b"


def _figure(title):
    fig, ax = plt.subplots(figsize=(4, 2.8), dpi=100)
    ax.set_axis_off()
    ax.set_title(title, fontsize=15, color=GREY)
    return fig, ax


def basics(ax):
    """A tensor: a grid of numbers, coloured by value."""
    values = np.round(np.random.default_rng(0).standard_normal((4, 6)), 1)
    ax.imshow(values, cmap="RdBu_r", vmin=-2, vmax=2)
    for (i, j), v in np.ndenumerate(values):
        ax.text(j, i, f"{v:.1f}", ha="center", va="center", fontsize=9)


def nn(ax):
    """Layers of units, fully connected."""
    layers = [3, 5, 4, 2]
    pos = [
        [(x, y - (n - 1) / 2) for y in range(n)] for x, n in enumerate(layers)
    ]
    for left, right in zip(pos, pos[1:]):
        for a in left:
            for b in right:
                ax.plot(*zip(a, b), color=GREY, lw=0.6, zorder=1)
    for layer in pos:
        ax.scatter(*zip(*layer), s=220, color=ORANGE, zorder=2)


def data(ax):
    """A batch of images leaving a dataset."""
    rng = np.random.default_rng(1)
    for k in range(8):
        x, y = k % 4, k // 4
        tile = rng.random((6, 6, 3)) * 0.6 + 0.2
        ax.imshow(tile, extent=(x * 1.2, x * 1.2 + 1, y * 1.2, y * 1.2 + 1))
    ax.set_xlim(-0.2, 4.8)
    ax.set_ylim(-0.2, 2.6)


def advanced(ax):
    """Several devices or processes working on one model."""
    for i, name in enumerate(["process 0", "process 1", "process 2"]):
        ax.add_patch(
            plt.Rectangle((i * 1.4, 0), 1.1, 0.8, color=BLUE, alpha=0.8)
        )
        ax.text(
            i * 1.4 + 0.55,
            0.4,
            name,
            ha="center",
            va="center",
            color="white",
            fontsize=9,
        )
        ax.annotate(
            "",
            xy=(1.95, 1.4),
            xytext=(i * 1.4 + 0.55, 0.85),
            arrowprops={"arrowstyle": "->", "color": GREY},
        )
    ax.add_patch(plt.Rectangle((1.4, 1.4), 1.1, 0.6, color=ORANGE))
    ax.text(1.95, 1.7, "model", ha="center", va="center", color="white")
    ax.set_xlim(-0.1, 4.0)
    ax.set_ylim(-0.1, 2.1)


def lesson(ax):
    """The default card (sphinx-gallery's default_thumb_file): code."""
    ax.text(
        0.5,
        0.5,
        "import torch",
        ha="center",
        va="center",
        family="monospace",
        fontsize=22,
        color=ORANGE,
    )


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for draw, title in [
        (basics, "tensors"),
        (nn, "torch.nn"),
        (data, "datasets"),
        (advanced, "processes and devices"),
        (lesson, "a lesson without figures"),
    ]:
        fig, ax = _figure(title)
        draw(ax)
        fig.savefig(OUT / f"{draw.__name__}.png", metadata={"Software": None})
        plt.close(fig)


if __name__ == "__main__":
    main()

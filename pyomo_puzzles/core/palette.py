"""Colour-blind-safe colours shared by every family's pictures."""

from __future__ import annotations

import seaborn as sns

_CB = sns.color_palette("colorblind", 10)
NAMED_COLOURS = {"blue": _CB[0], "orange": _CB[1], "green": _CB[2], "red": _CB[3], "purple": _CB[4],
                 "brown": _CB[5], "pink": _CB[6], "grey": _CB[7], "yellow": _CB[8], "cyan": _CB[9],
                 "white": (0.97, 0.97, 0.97), "black": (0.25, 0.25, 0.25)}
"""Colour names used in puzzle data, drawn in the colour-blind palette's nearest hue."""


def palette(n: int) -> list:
    """n colour-blind-safe colours (seaborn 'colorblind', extended if needed)."""
    return [_CB[i % 10] for i in range(n)] if n <= 10 else sns.color_palette("husl", n)


def colour_of(name: str | None, fallback):
    return NAMED_COLOURS.get(name, fallback) if name else fallback

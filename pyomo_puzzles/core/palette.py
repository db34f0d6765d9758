"""Colour-blind-safe colours shared by every family's pictures."""

from __future__ import annotations

from matplotlib.colors import to_rgb

_CB = [to_rgb(code) for code in ("#0173b2", "#de8f05", "#029e73", "#d55e00", "#cc78bc",
                                 "#ca9161", "#fbafe4", "#949494", "#ece133", "#56b4e9")]
"""seaborn's 'colorblind' palette, written out: importing seaborn (and with it scipy and
pandas) costs about a second, which a picture should not pay for ten colours."""
NAMED_COLOURS = {"blue": _CB[0], "orange": _CB[1], "green": _CB[2], "red": _CB[3], "purple": _CB[4],
                 "brown": _CB[5], "pink": _CB[6], "grey": _CB[7], "yellow": _CB[8], "cyan": _CB[9],
                 "white": (0.97, 0.97, 0.97), "black": (0.25, 0.25, 0.25)}
"""Colour names used in puzzle data, drawn in the colour-blind palette's nearest hue."""


def palette(n: int) -> list:
    """n colour-blind-safe colours (seaborn 'colorblind', extended if needed)."""
    if n <= 10:
        return _CB[:n]
    import seaborn as sns  # about 1 s (scipy, pandas): only for more than ten colours

    return sns.color_palette("husl", n)


def colour_of(name: str | None, fallback):
    return NAMED_COLOURS.get(name, fallback) if name else fallback

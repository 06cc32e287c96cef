"""WCAG 2.2's contrast ratio, for the course's HTML outputs that carry their own colours.

>>> round(contrast("#767676", "#ffffff"), 2)  # WebAIM's figure for that grey: 4.54
4.54
>>> sorted(text_colours('<b style="color:#2e7d32">ok</b><i style="color:#555">'
...                      '<div style="background-color:#ffffff">'))
['#2e7d32', '#555555']
"""

from __future__ import annotations

import re


def contrast(one: str, other: str) -> float:
    """The contrast ratio of two #rrggbb colours (WCAG's relative luminance formula)."""
    def luminance(colour: str) -> float:
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def text_colours(page: str) -> set[str]:
    """Every text colour written as `color:#rrggbb` or `#rgb` in `page` (not background-color),
    as #rrggbb."""
    found = re.findall(r"(?<![-\w])color:#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b", page)
    return {"#" + (c if len(c) == 6 else "".join(d * 2 for d in c)).lower() for c in found}

"""The digest's charts as small PNGs, drawn server-side with Pillow (no browser, no display).

Pillow rather than matplotlib: two simple charts need no plotting library, and drawing them
takes milliseconds, which matters when a thousand digests go out at 09:00. The images carry
only numbers and dates (the words are in the e-mail around them, in the reader's language,
and in the alt text), so one rendering serves readers of every language.

Palette-mode PNGs of a few colours keep each chart to a few KB, far under the 100 KB limit.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from decimal import Decimal
from functools import cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 600, 220
MAX_PNG_BYTES = 100 * 1024
BACKGROUND = (255, 255, 255)
INK = (55, 65, 81)
GRID = (229, 231, 235)
# The digest's period in the strong colour, the two before it lighter.
PERIOD_COLOURS = [(37, 99, 235), (147, 197, 253), (203, 213, 225)]
EMPTY = (243, 244, 246)


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.convert("P", palette=Image.Palette.ADAPTIVE, colors=64).save(
        buffer, format="PNG", optimize=True
    )
    data = buffer.getvalue()
    if len(data) > MAX_PNG_BYTES:
        raise ValueError(f"chart of {len(data)} bytes is over {MAX_PNG_BYTES}")
    return data


def _amount_label(amount: Decimal) -> str:
    value = float(amount)
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if abs(value) >= 10_000:
        return f"{value / 1_000:.0f}k"
    return f"{value:,.0f}"


def spend_bars(daily: Sequence[tuple[dt.date, int, Decimal]]) -> bytes:
    """Spend per local day: the digest's period dark, the two previous periods lighter."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    left, right, top, bottom = 48, WIDTH - 10, 12, HEIGHT - 28
    top_value = max((float(cost) for _, _, cost in daily), default=0.0) or 1.0
    font = _font(11)
    for fraction in (0.0, 0.5, 1.0):
        y = bottom - fraction * (bottom - top)
        draw.line([(left, y), (right, y)], fill=GRID)
        draw.text((4, y - 6), _amount_label(Decimal(top_value * fraction)), fill=INK, font=font)
    if daily:
        slot = (right - left) / len(daily)
        width = max(slot * 0.8, 1.0)
        label_every = max(1, len(daily) // 8)
        for index, (day, period, cost) in enumerate(daily):
            x = left + index * slot + (slot - width) / 2
            height = float(cost) / top_value * (bottom - top)
            colour = PERIOD_COLOURS[min(period, len(PERIOD_COLOURS) - 1)]
            draw.rectangle([(x, bottom - height), (x + width, bottom)], fill=colour)
            if index % label_every == 0:
                draw.text((x, bottom + 6), day.strftime("%m-%d"), fill=INK, font=font)
    return _png(image)


def _heat_colour(value: float | None) -> tuple[int, int, int]:
    if value is None:
        return EMPTY
    # White-ish (idle) to deep blue (busy), linear in utilization.
    share = max(0.0, min(value / 100.0, 1.0))
    low, high = (239, 246, 255), (30, 64, 175)
    return tuple(round(a + (b - a) * share) for a, b in zip(low, high, strict=True))  # type: ignore[return-value]


def utilization_heatmap(days: Sequence[dt.date], grid: Sequence[Sequence[float | None]]) -> bytes:
    """Mean GPU utilization per local day (rows) and hour (columns); grey where nothing reported."""
    rows = max(len(days), 1)
    cell_h = max(4, min(18, 180 // rows))
    left, top = 48, 16
    height = top + rows * cell_h + 6
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = _font(11)
    cell_w = (WIDTH - left - 10) // 24  # whole pixels: no seams between cells
    for hour in range(0, 24, 3):
        draw.text((left + hour * cell_w, 2), f"{hour:02d}", fill=INK, font=font)
    label_every = max(1, rows // 10)
    for row, day in enumerate(days):
        y = top + row * cell_h
        if row % label_every == 0:
            draw.text((4, y), day.strftime("%m-%d"), fill=INK, font=font)
        for hour in range(24):
            x = left + hour * cell_w
            draw.rectangle(
                [(x, y), (x + cell_w - 1, y + cell_h - 2)], fill=_heat_colour(grid[row][hour])
            )
    return _png(image)

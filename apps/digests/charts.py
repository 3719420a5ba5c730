"""The digest's charts as small PNGs, drawn server-side with Pillow (no browser, no display).

Pillow rather than matplotlib: two simple charts need no plotting library, and drawing them
takes milliseconds, which matters when a thousand digests go out at 09:00. The images carry
only numbers, dates, units and symbols (the currency code, "%", clock hours; the words are in
the e-mail around them, in the reader's language, and in the alt text), so one rendering serves
readers of every language, and no CJK font is needed on the server. Each chart names the unit
of its value axis and has a legend: the spend bars one swatch per period with its days, the
heatmap its colour scale from 0 % to 100 %.

Palette-mode PNGs of a few colours keep each chart to a few KB, far under the 100 KB limit.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
from collections.abc import Sequence
from decimal import Decimal
from functools import cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 600, 244
MAX_PNG_BYTES = 100 * 1024
BACKGROUND = (255, 255, 255)
INK = (55, 65, 81)
GRID = (229, 231, 235)
GRID_STRONG = (156, 163, 175)
# The digest's period in the strong colour, the two before it lighter.
PERIOD_COLOURS = [(37, 99, 235), (147, 197, 253), (203, 213, 225)]
EMPTY = (243, 244, 246)


Rgb = tuple[int, int, int]


@dataclasses.dataclass(frozen=True)
class LegendEntry:
    label: str
    colour: Rgb
    box: tuple[int, int, int, int]  # the swatch's (left, top, right, bottom) in the image


@dataclasses.dataclass(frozen=True)
class Drawing:
    """A chart as drawn: the PNG, every text on it in drawing order, its legend."""

    png: bytes
    texts: tuple[str, ...]
    legend: tuple[LegendEntry, ...]


class _Canvas:
    """ImageDraw that remembers what it wrote and the legend it drew (for tests and alt text)."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.texts: list[str] = []
        self.legend: list[LegendEntry] = []

    def text(self, xy: tuple[float, float], text: str) -> float:
        """Writes ``text`` at ``xy``; returns the x where it ends."""
        self.draw.text(xy, text, fill=INK, font=_font(11))
        self.texts.append(text)
        return xy[0] + self.draw.textlength(text, font=_font(11))

    def swatch(self, x: float, y: float, colour: Rgb, label: str) -> float:
        """A legend entry: a square of ``colour`` and its label; returns the x after it."""
        box = (round(x), round(y), round(x) + 10, round(y) + 10)
        # Outlined: the lightest colours would vanish into the white background otherwise.
        self.draw.rectangle(box, fill=colour, outline=GRID_STRONG)
        self.legend.append(LegendEntry(label=label, colour=colour, box=box))
        return self.text((x + 14, y - 1), label) + 16

    def done(self) -> Drawing:
        return Drawing(png=_png(self.image), texts=tuple(self.texts), legend=tuple(self.legend))


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


def _days_label(first: dt.date, last: dt.date) -> str:
    # "~", not an en dash: Pillow's built-in font has no glyph for "–", and "~" reads as a range
    # in Chinese and English alike.
    return first.strftime("%m-%d") if first == last else f"{first:%m-%d} ~ {last:%m-%d}"


def _period_colour(period: int) -> Rgb:
    return PERIOD_COLOURS[min(period, len(PERIOD_COLOURS) - 1)]


def draw_spend_bars(daily: Sequence[tuple[dt.date, int, Decimal]], *, currency: str) -> Drawing:
    """Spend per local day in ``currency``: the digest's period dark, the two previous periods
    lighter; the value axis says its unit, the legend which days each colour is."""
    canvas = _Canvas(Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND))
    draw = canvas.draw
    left, right, top, bottom = 48, WIDTH - 10, 24, HEIGHT - 50
    top_value = max((float(cost) for _, _, cost in daily), default=0.0) or 1.0
    canvas.text((4, 4), currency)  # the unit of the value axis, above its labels
    for fraction in (0.0, 0.5, 1.0):
        y = bottom - fraction * (bottom - top)
        draw.line([(left, y), (right, y)], fill=GRID)
        canvas.text((4, y - 6), _amount_label(Decimal(top_value * fraction)))
    if daily:
        slot = (right - left) / len(daily)
        width = max(slot * 0.8, 1.0)
        label_every = max(1, len(daily) // 8)
        for index, (day, period, cost) in enumerate(daily):
            x = left + index * slot + (slot - width) / 2
            height = float(cost) / top_value * (bottom - top)
            draw.rectangle([(x, bottom - height), (x + width, bottom)], fill=_period_colour(period))
            if index % label_every == 0:
                canvas.text((x, bottom + 6), day.strftime("%m-%d"))
    # The legend: the digest's period first, then the ones before it, each with its days.
    days_of: dict[int, list[dt.date]] = {}
    for day, period, _ in daily:
        days_of.setdefault(period, []).append(day)
    x = float(left)
    for period in sorted(days_of):
        days = days_of[period]
        x = canvas.swatch(x, HEIGHT - 18, _period_colour(period), _days_label(min(days), max(days)))
    return canvas.done()


def spend_bars(daily: Sequence[tuple[dt.date, int, Decimal]], *, currency: str) -> bytes:
    """The PNG of ``draw_spend_bars``."""
    return draw_spend_bars(daily, currency=currency).png


def _heat_colour(value: float | None) -> tuple[int, int, int]:
    if value is None:
        return EMPTY
    # White-ish (idle) to deep blue (busy), linear in utilization.
    share = max(0.0, min(value / 100.0, 1.0))
    low, high = (239, 246, 255), (30, 64, 175)
    return tuple(round(a + (b - a) * share) for a, b in zip(low, high, strict=True))  # type: ignore[return-value]


def draw_utilization_heatmap(
    days: Sequence[dt.date], grid: Sequence[Sequence[float | None]]
) -> Drawing:
    """Mean GPU utilization per local day (rows) and hour (columns, as clock hours); grey where
    nothing reported; under it the colour scale, GPU 0 % to 100 %."""
    rows = max(len(days), 1)
    cell_h = max(4, min(18, 180 // rows))
    left, top = 48, 16
    grid_bottom = top + rows * cell_h
    height = grid_bottom + 30
    canvas = _Canvas(Image.new("RGB", (WIDTH, height), BACKGROUND))
    draw = canvas.draw
    cell_w = (WIDTH - left - 10) // 24  # whole pixels: no seams between cells
    for hour in range(0, 24, 3):
        canvas.text((left + hour * cell_w, 2), f"{hour:02d}:00")
    label_every = max(1, rows // 10)
    for row, day in enumerate(days):
        y = top + row * cell_h
        if row % label_every == 0:
            canvas.text((4, y), day.strftime("%m-%d"))
        for hour in range(24):
            x = left + hour * cell_w
            draw.rectangle(
                [(x, y), (x + cell_w - 1, y + cell_h - 2)], fill=_heat_colour(grid[row][hour])
            )
    # The legend: the scale in five steps, each swatch labelled with its utilization.
    legend_y = grid_bottom + 10
    legend_x = canvas.text((left, legend_y - 1), "GPU") + 8
    for pct in (0, 25, 50, 75, 100):
        legend_x = canvas.swatch(legend_x, legend_y, _heat_colour(float(pct)), f"{pct}%")
    return canvas.done()


def utilization_heatmap(days: Sequence[dt.date], grid: Sequence[Sequence[float | None]]) -> bytes:
    """The PNG of ``draw_utilization_heatmap``."""
    return draw_utilization_heatmap(days, grid).png

/**
 * Sparklines as inline SVG paths: a table of 50 rows would be 50 ECharts instances otherwise.
 *
 * One value a day; `null` (no data that day) breaks the line, and a value with no neighbour is drawn
 * as a dot so a single day of data is still visible. When the range ends today, the last value is the
 * day so far, not a whole day: it is drawn apart (`partial`, hollow, reached by a dashed `partialLink`)
 * so a half-spent today does not read as a drop.
 */
import { todayIn } from '../../dateRange';

export interface SparklineShape {
  /** One SVG path `d` per run of consecutive values. */
  segments: string[];
  /** Points that have no neighbour on either side. */
  dots: { x: number; y: number }[];
  /** The last point when it is today so far (drawn hollow), else null. */
  partial?: { x: number; y: number } | null;
  /** A path `d` from the day before to `partial` (drawn dashed), when that day has a value. */
  partialLink?: string | null;
}

export interface SparklineScale {
  /** The value drawn at the bottom (default 0). */
  min?: number;
  /** The value drawn at the top (default: the largest value, at least min + 1e-9). */
  max?: number;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

export function sparklineShape(
  values: readonly (number | null)[],
  width: number,
  height: number,
  scale: SparklineScale = {},
  lastIsPartial = false,
): SparklineShape {
  const drawn = values.filter((v): v is number => v != null && Number.isFinite(v));
  const min = scale.min ?? 0;
  const max = Math.max(scale.max ?? Math.max(min, ...drawn), min + 1e-9);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const point = (i: number, v: number) => ({
    x: round(values.length > 1 ? i * step : width / 2),
    y: round(height - ((Math.min(Math.max(v, min), max) - min) / (max - min)) * height),
  });
  const segments: string[] = [];
  const dots: { x: number; y: number }[] = [];
  let run: { x: number; y: number }[] = [];
  const flush = () => {
    if (run.length === 1) dots.push(run[0]!);
    else if (run.length > 1) segments.push(run.map((p, j) => `${j === 0 ? 'M' : 'L'}${p.x},${p.y}`).join(' '));
    run = [];
  };
  const present = (v: number | null | undefined): v is number => v != null && Number.isFinite(v);
  const last = values.length - 1;
  const partialIndex = lastIsPartial && last >= 0 && present(values[last]) ? last : -1;
  values.forEach((v, i) => {
    if (i === partialIndex || !present(v)) flush();
    else run.push(point(i, v));
  });
  flush();
  if (partialIndex < 0) return { segments, dots };
  const partial = point(partialIndex, values[partialIndex]!);
  const before = values[partialIndex - 1];
  const from = present(before) ? point(partialIndex - 1, before) : null;
  return { segments, dots, partial, partialLink: from ? `M${from.x},${from.y} L${partial.x},${partial.y}` : null };
}

/** Whether the last of the range's days (`YYYY-MM-DD`, the API's `days`) is today in `timeZone`. */
export function endsToday(days: readonly string[], timeZone: string, now: Date = new Date()): boolean {
  return days.length > 0 && days[days.length - 1] === todayIn(timeZone, now);
}

/** Decimal strings (money) as numbers for drawing only; an unreadable value is no data. */
export function moneySeries(values: readonly string[]): (number | null)[] {
  return values.map((v) => {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  });
}

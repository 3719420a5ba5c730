/**
 * Sparklines as inline SVG paths: a table of 50 rows would be 50 ECharts instances otherwise.
 *
 * One value a day; `null` (no data that day) breaks the line, and a value with no neighbour is drawn
 * as a dot so a single day of data is still visible.
 */

export interface SparklineShape {
  /** One SVG path `d` per run of consecutive values. */
  segments: string[];
  /** Points that have no neighbour on either side. */
  dots: { x: number; y: number }[];
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
): SparklineShape {
  const present = values.filter((v): v is number => v != null && Number.isFinite(v));
  const min = scale.min ?? 0;
  const max = Math.max(scale.max ?? Math.max(min, ...present), min + 1e-9);
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
  values.forEach((v, i) => {
    if (v == null || !Number.isFinite(v)) flush();
    else run.push(point(i, v));
  });
  flush();
  return { segments, dots };
}

/** Decimal strings (money) as numbers for drawing only; an unreadable value is no data. */
export function moneySeries(values: readonly string[]): (number | null)[] {
  return values.map((v) => {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  });
}

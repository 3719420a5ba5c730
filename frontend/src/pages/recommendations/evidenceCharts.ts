/**
 * The option builders of the evidence charts (pure, so a test can recompute every bar from the answer it
 * was built from):
 *
 * - the hour-of-week profile (p95 GPU utilization per hour of the week, in the organization's timezone),
 *   the hours inside the recommended window set apart, with the rule's threshold as a line;
 * - the hours per phase per calendar day (in the organization's timezone) over the evidence's range,
 *   summed from the phase segments the instance page draws.
 */
import type { ChartOption } from '../../components/Chart';
import { axisTooltipFormatter } from '../../components/chartText';
import type { Phase, PhaseSegment, WeekGrid, RecommendationWindow } from '../../api/types';
import { i18n } from '../../i18n';
import { PHASE_COLORS, PHASE_LABELS, PHASES } from '../../phases';
import { offWindowCells, WEEKDAYS } from '../HourOfWeekHeatmap';

const IN_WINDOW = '#c0392b';
const OUT_OF_WINDOW = '#5b7bd5';
const QUARTER_HOUR = 15 * 60_000;

/** The hour-of-week cells (weekday * 24 + hour) the recommendation's window covers. */
export function windowCells(window: RecommendationWindow | null | undefined): Set<number> {
  if (!window) return new Set();
  return offWindowCells({ runs: window.runs });
}

export interface HourOfWeekInput {
  p95: WeekGrid;
  window: RecommendationWindow | null;
  /** The rule's "low" threshold (p95 %), drawn as a line; null when the evidence has none. */
  thresholdPct: number | null;
}

/** "Mon 00" .. "Sun 23" in the UI language. */
function hourLabels(): string[] {
  return WEEKDAYS.flatMap((day) =>
    Array.from({ length: 24 }, (_, h) => i18n.t('recommendations.chart.hourLabel', { day: i18n.t(`weekday.${day}`), hour: String(h).padStart(2, '0') })),
  );
}

export function hourOfWeekOption({ p95, window, thresholdPct }: HourOfWeekInput): ChartOption {
  const cells = windowCells(window);
  const inside: (number | null)[] = [];
  const outside: (number | null)[] = [];
  for (let d = 0; d < 7; d++) {
    for (let h = 0; h < 24; h++) {
      const value = p95[d]?.[h] ?? null;
      const cell = d * 24 + h;
      inside.push(cells.has(cell) ? value : null);
      outside.push(cells.has(cell) ? null : value);
    }
  }
  const labels = hourLabels();
  return {
    tooltip: { trigger: 'axis', formatter: axisTooltipFormatter() },
    legend: { top: 0 },
    grid: { left: 40, right: 16, top: 36, bottom: 40 },
    xAxis: { type: 'category', data: labels, axisLabel: { interval: 23, hideOverlap: true } },
    yAxis: { type: 'value', min: 0, max: 100, name: i18n.t('recommendations.chart.p95Axis') },
    series: [
      {
        type: 'bar',
        name: i18n.t('recommendations.chart.inWindow'),
        stack: 'p95',
        barCategoryGap: '10%',
        itemStyle: { color: IN_WINDOW },
        data: inside,
      },
      {
        type: 'bar',
        name: i18n.t('recommendations.chart.outsideWindow'),
        stack: 'p95',
        itemStyle: { color: OUT_OF_WINDOW },
        data: outside,
      },
      ...(thresholdPct === null
        ? []
        : [
            {
              type: 'line' as const,
              name: i18n.t('recommendations.chart.threshold', { pct: thresholdPct }),
              symbol: 'none',
              lineStyle: { type: 'dashed' as const, color: '#7f8c8d' },
              itemStyle: { color: '#7f8c8d' },
              data: labels.map(() => thresholdPct),
            },
          ]),
    ],
  };
}

const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) of a moment in `timeZone`. */
export function dayIn(ms: number, timeZone: string): string {
  let f = dayFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormatters.set(timeZone, f);
  }
  const parts = f.formatToParts(new Date(ms));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

export interface DailyPhaseMinutes {
  /** Calendar days in the organization's timezone, oldest first, every day of the range. */
  days: string[];
  /** Minutes per phase per day, aligned with `days`. */
  minutes: Record<Phase, number[]>;
}

/**
 * Minutes per phase per calendar day. A segment that crosses midnight is split there: every timezone's
 * midnight falls on a quarter hour of UTC, so the segment is cut at quarter hours and each piece counted
 * on its own day.
 */
export function dailyPhaseMinutes(segments: PhaseSegment[], start: string, end: string, timeZone: string): DailyPhaseMinutes {
  const startMs = new Date(start).getTime();
  const endMs = new Date(end).getTime();
  const days: string[] = [];
  for (let t = startMs; t < endMs; t += QUARTER_HOUR) {
    const day = dayIn(t, timeZone);
    if (days[days.length - 1] !== day) days.push(day);
  }
  const index = new Map(days.map((day, i) => [day, i]));
  const minutes = Object.fromEntries(PHASES.map((p) => [p, days.map(() => 0)])) as Record<Phase, number[]>;
  for (const segment of segments) {
    const from = Math.max(new Date(segment.start_at).getTime(), startMs);
    const to = Math.min(new Date(segment.end_at).getTime(), endMs);
    let t = from;
    while (t < to) {
      const next = Math.min(to, (Math.floor(t / QUARTER_HOUR) + 1) * QUARTER_HOUR);
      const i = index.get(dayIn(t, timeZone));
      const row = minutes[segment.phase];
      if (i !== undefined && row) row[i]! += (next - t) / 60_000;
      t = next;
    }
  }
  return { days, minutes };
}

/** Stacked bars: hours per phase per day. */
export function dailyPhaseOption(daily: DailyPhaseMinutes): ChartOption {
  return {
    tooltip: { trigger: 'axis', formatter: axisTooltipFormatter() },
    legend: { top: 0 },
    grid: { left: 40, right: 16, top: 36, bottom: 28 },
    xAxis: { type: 'category', data: daily.days.map((day) => day.slice(5)) },
    yAxis: { type: 'value', min: 0, max: 24, name: i18n.t('recommendations.chart.hoursAxis') },
    series: PHASES.map((phase) => ({
      type: 'bar' as const,
      name: PHASE_LABELS[phase],
      stack: 'day',
      itemStyle: { color: PHASE_COLORS[phase] },
      data: daily.minutes[phase].map((m) => Math.round((m / 60) * 100) / 100),
    })),
  };
}

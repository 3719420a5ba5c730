import { describe, expect, it } from 'vitest';
import { i18n } from '../../i18n';
import type { Phase } from '../../api/types';
import { PHASE_COLORS, PHASE_LABELS, PHASES } from '../../phases';
import {
  capPhaseBands,
  detailWindow,
  resolutionFor,
  withDetail,
  zoomWindow,
  instanceTimeseriesOption,
  MAX_PHASE_BANDS,
  mergePhaseBands,
  phaseBands,
  seriesData,
  type PhasePeriod,
  type SeriesPoint,
} from './timeseriesOption';
import { dailyCostOption, dailyCostStacks, type DailyCostReport } from './dailyCostOption';

const t = i18n.getFixedT('en');
const T0 = Date.parse('2026-10-26T00:00:00Z');
const MIN = 60_000;

function at(minutes: number): string {
  return new Date(T0 + minutes * MIN).toISOString();
}

function period(phase: Phase, from: number, to: number): PhasePeriod {
  return { phase, start_at: at(from), end_at: at(to) };
}

describe('phase bands', () => {
  it('merges adjacent periods of the same phase, in time order, but not across another phase or a gap', () => {
    const bands = mergePhaseBands([
      period('training', 30, 60),
      period('training', 0, 30),
      period('idle', 60, 90),
      period('idle', 90, 120),
      period('training', 120, 150),
      // Two hours without data: a new band, the gap stays unpainted.
      period('training', 270, 300),
    ]);
    expect(bands).toEqual([
      { phase: 'training', start: T0, end: T0 + 60 * MIN },
      { phase: 'idle', start: T0 + 60 * MIN, end: T0 + 120 * MIN },
      { phase: 'training', start: T0 + 120 * MIN, end: T0 + 150 * MIN },
      { phase: 'training', start: T0 + 270 * MIN, end: T0 + 300 * MIN },
    ]);
  });

  it('caps the bands at the longest, kept in time order, and says how many there were', () => {
    // Alternating phases (nothing merges): lengths 1, 2, 3, ... minutes.
    const segments: PhasePeriod[] = [];
    let start = 0;
    for (let i = 1; i <= MAX_PHASE_BANDS + 50; i++) {
      segments.push(period(i % 2 ? 'training' : 'idle', start, start + i));
      start += i;
    }
    const { bands, total } = phaseBands(segments);
    expect(total).toBe(MAX_PHASE_BANDS + 50);
    expect(bands).toHaveLength(MAX_PHASE_BANDS);
    // The 50 shortest (1..50 minutes) are the ones left out.
    expect(Math.min(...bands.map((b) => (b.end - b.start) / MIN))).toBe(51);
    expect(bands.map((b) => b.start)).toEqual([...bands.map((b) => b.start)].sort((a, b) => a - b));

    const few = mergePhaseBands([period('idle', 0, 10), period('training', 10, 20)]);
    expect(capPhaseBands(few, 5)).toEqual({ bands: few, total: 2 });
  });
});

describe('instance time series option', () => {
  const points: SeriesPoint[] = [
    { t: at(0), gpu_util_pct: 90, gpu_mem_used_pct: 60, cpu_util_pct: 20, gpu_temp_c: 71 },
    { t: at(60), gpu_util_pct: 80, gpu_mem_used_pct: 61, cpu_util_pct: 22, gpu_temp_c: null },
    // Three hours missing.
    { t: at(300), gpu_util_pct: 5, gpu_mem_used_pct: 3, cpu_util_pct: 1, gpu_temp_c: 40 },
  ];

  function build() {
    const { bands } = phaseBands([period('training', 0, 120), period('idle', 120, 180), period('idle', 180, 300)]);
    return instanceTimeseriesOption({
      points,
      resolution: 'hour',
      bands,
      phaseColors: PHASE_COLORS,
      phaseLabels: PHASE_LABELS,
      start: T0,
      end: T0 + 24 * 60 * MIN,
      t,
      formatTime: (ms) => new Date(ms).toISOString(),
    });
  }

  it('draws one line per metric, temperature on its own axis, breaking lines over gaps', () => {
    const option = build();
    const series = option.series as { name: string; type: string; yAxisIndex: number; data: [number, number | null][] }[];
    expect(series.map((s) => s.name)).toEqual(['GPU utilization', 'GPU memory', 'CPU', 'GPU temperature']);
    expect(series.every((s) => s.type === 'line')).toBe(true);
    expect(series.map((s) => s.yAxisIndex)).toEqual([0, 0, 0, 1]);
    expect(series[0]!.data).toEqual([
      [T0, 90],
      [T0 + 60 * MIN, 80],
      [T0 + 120 * MIN, null],
      [T0 + 300 * MIN, 5],
    ]);
    expect(series[3]!.data[1]).toEqual([T0 + 60 * MIN, null]);
    expect(option.xAxis).toMatchObject({ type: 'time', min: T0, max: T0 + 24 * 60 * MIN });
  });

  it('zooms with the wheel and a slider on the time axis', () => {
    const zoom = build().dataZoom as { type: string; xAxisIndex: number }[];
    expect(zoom.map((z) => z.type)).toEqual(['inside', 'slider']);
    expect(zoom.every((z) => z.xAxisIndex === 0)).toBe(true);
  });

  it('puts the merged phase bands behind the lines, coloured per phase', () => {
    const series = build().series as { markArea?: { data: [{ xAxis: number; itemStyle: { color: string } }, { xAxis: number }][] } }[];
    const areas = series[0]!.markArea!.data;
    expect(areas).toHaveLength(2);
    expect(areas.map(([a, b]) => [a.xAxis, b.xAxis])).toEqual([
      [T0, T0 + 120 * MIN],
      [T0 + 120 * MIN, T0 + 300 * MIN],
    ]);
    expect(areas.map(([a]) => a.itemStyle.color)).toEqual([PHASE_COLORS.training, PHASE_COLORS.idle]);
    expect(series.slice(1).every((s) => s.markArea === undefined)).toBe(true);
  });

  it('breaks a minute series only where a minute is missing', () => {
    const minutes: SeriesPoint[] = [0, 1, 2, 4].map((m) => ({ t: at(m), gpu_util_pct: m, gpu_mem_used_pct: null, cpu_util_pct: null }));
    expect(seriesData(minutes, 'gpu_util_pct', MIN).map(([, v]) => v)).toEqual([0, 1, 2, null, 4]);
  });
});

describe('zooming in for finer points', () => {
  const HOUR = 60 * MIN;
  const week = { start: T0, end: T0 + 7 * 24 * HOUR };

  it('picks the resolution as the API does, never over 1,500 points', () => {
    expect(resolutionFor(T0, T0 + 1500 * MIN)).toBe('minute');
    expect(resolutionFor(T0, T0 + 1501 * MIN)).toBe('hour');
    expect(resolutionFor(T0, T0 + 1500 * HOUR)).toBe('hour');
    expect(resolutionFor(T0, T0 + 1501 * HOUR)).toBe('day');
  });

  it('asks again only when the zoomed window has a finer resolution than the points shown', () => {
    // 10 % of a week is 16.8 hours: minutes fit.
    const zoom = zoomWindow(week, 40, 50);
    expect(zoom).toEqual({ start: T0 + 67.2 * HOUR, end: T0 + 84 * HOUR });
    expect(detailWindow(zoom, 'hour')).toEqual({ start: T0 + 67.2 * HOUR, end: T0 + 84 * HOUR });
    // Already minutes, or half a week (still hours): nothing to ask.
    expect(detailWindow(zoom, 'minute')).toBeNull();
    expect(detailWindow(zoomWindow(week, 0, 50), 'hour')).toBeNull();
    expect(detailWindow(null, 'hour')).toBeNull();
    // Whole minutes: a window starting 30 s into a minute starts at that minute.
    expect(detailWindow({ start: T0 + 30_000, end: T0 + HOUR }, 'hour')).toEqual({ start: T0, end: T0 + HOUR });
  });

  it('shows the fine points inside the window and the coarse ones outside it', () => {
    const p = (m: number, v: number): SeriesPoint => ({ t: at(m), gpu_util_pct: v, gpu_mem_used_pct: null, cpu_util_pct: null });
    const coarse = [p(0, 1), p(60, 2), p(120, 3), p(180, 4)];
    const fine = [p(60, 20), p(61, 21), p(119, 29)];
    const merged = withDetail(coarse, fine, { start: T0 + 60 * MIN, end: T0 + 120 * MIN });
    expect(merged.map((x) => x.gpu_util_pct)).toEqual([1, 20, 21, 29, 3, 4]);
  });

  it('keeps the zoom when the option is replaced', () => {
    const option = instanceTimeseriesOption({
      points: [],
      resolution: 'hour',
      bands: [],
      phaseColors: PHASE_COLORS,
      phaseLabels: PHASE_LABELS,
      start: week.start,
      end: week.end,
      t,
      formatTime: () => '',
      zoom: { start: T0 + HOUR, end: T0 + 2 * HOUR },
    });
    expect(option.dataZoom).toMatchObject([
      { type: 'inside', startValue: T0 + HOUR, endValue: T0 + 2 * HOUR },
      { type: 'slider', startValue: T0 + HOUR, endValue: T0 + 2 * HOUR },
    ]);
  });
});

describe('daily cost option', () => {
  const report: DailyCostReport = {
    buckets: ['2026-10-26', '2026-10-27', '2026-10-28'],
    currency: 'CNY',
    total: '30.00',
    group_by: ['phase'],
    groups: [
      {
        keys: [{ dimension: 'phase', value: 'idle', label: 'idle' }],
        cost: '6.00',
        series: [
          { period_start: '2026-10-26', cost: '1.00' },
          { period_start: '2026-10-27', cost: '2.00' },
          { period_start: '2026-10-28', cost: '3.00' },
        ],
      },
      {
        keys: [{ dimension: 'phase', value: 'training', label: 'training' }],
        cost: '24.00',
        series: [
          { period_start: '2026-10-26', cost: '10.00' },
          { period_start: '2026-10-27', cost: '8.00' },
          { period_start: '2026-10-28', cost: '6.00' },
        ],
      },
      {
        keys: [{ dimension: 'phase', value: 'evaluation', label: 'evaluation' }],
        cost: '0.00',
        series: [],
      },
    ],
  };

  it('stacks the days by phase in display order, leaving out phases without money', () => {
    expect(dailyCostStacks(report, PHASES)).toEqual([
      { phase: 'training', values: [10, 8, 6] },
      { phase: 'idle', values: [1, 2, 3] },
    ]);
    const option = dailyCostOption({
      report,
      phases: PHASES,
      phaseColors: PHASE_COLORS,
      phaseLabels: PHASE_LABELS,
      t,
      formatMoney: (a) => `¥${a}`,
      formatDay: (d) => d.slice(5),
    });
    const series = option.series as { type: string; stack: string; name: string; itemStyle: { color: string } }[];
    expect(series.map((s) => [s.type, s.stack, s.name])).toEqual([
      ['bar', 'cost', 'Training'],
      ['bar', 'cost', 'Idle'],
    ]);
    expect(series[1]!.itemStyle.color).toBe(PHASE_COLORS.idle);
    expect(option.xAxis).toMatchObject({ type: 'category', data: ['10-26', '10-27', '10-28'] });
  });

  it('draws one bar a day when the report is not split by phase', () => {
    const flat: DailyCostReport = {
      ...report,
      group_by: [],
      groups: [{ keys: [], cost: '30.00', series: report.groups[0]!.series }],
    };
    expect(dailyCostStacks(flat, PHASES)).toEqual([{ phase: null, values: [1, 2, 3] }]);
  });
});

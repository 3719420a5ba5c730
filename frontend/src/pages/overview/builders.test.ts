import { describe, expect, it } from 'vitest';
import type { CloudAccount } from '../../api/types';
import { CARD_SURFACE, contrastRatio, HEAT_SCALES, type Rgb } from '../../heatScale';
import { fleetHeatmapOption, heatmapPoints } from './fleetHeatmap';
import { changeRatio, sameDaysLastMonth } from './kpi';
import { phaseBreakdownOption, phaseRows, wasteMoney } from './phaseBreakdown';
import { MAX_SERIES, spendOverTimeOption, spendSeries, UNALLOCATED_COLOR } from './spendOverTime';
import { syncHealth } from './syncHealth';
import type { CostGroup, HourOfWeekCell, Usage } from '../../api/types';

const BUCKETS = ['2026-11-01', '2026-11-02', '2026-11-03'];
const LABELS = { unallocated: 'Unallocated', other: 'Other' };

function group(value: string | null, label: string, costs: string[]): CostGroup {
  const total = costs.reduce((a, c) => a + Number(c), 0).toFixed(2);
  return {
    keys: [{ dimension: 'project', value, label }],
    cost: total,
    previous_cost: '0.00',
    series: costs.map((cost, i) => ({ period_start: BUCKETS[i]!, cost })),
  };
}

describe('spend over time', () => {
  const groups = [
    group('nlp', 'NLP', ['10.00', '20.00', '30.00']),
    group(null, 'Unallocated', ['1.50', '0.00', '2.25']),
    group('vision', 'Vision', ['100.00', '0.00', '5.00']),
    group('idle', 'Nothing spent', ['0.00', '0.00', '0.00']),
  ];

  it('makes one stacked bar series per group, largest first, unallocated last and apart', () => {
    const series = spendSeries({ buckets: BUCKETS, groups }, LABELS);
    expect(series.map((s) => [s.name, s.kind, s.total])).toEqual([
      ['Vision', 'group', '105.00'],
      ['NLP', 'group', '60.00'],
      ['Unallocated', 'unallocated', '3.75'],
    ]);
    const option = spendOverTimeOption(BUCKETS, series, 'CNY', 'Total');
    const drawn = option.series as { type: string; stack: string; name: string; data: number[]; itemStyle?: { color?: string } }[];
    expect(drawn).toHaveLength(3);
    expect(new Set(drawn.map((s) => s.type))).toEqual(new Set(['bar']));
    // Stacked: every series on the same stack.
    expect(new Set(drawn.map((s) => s.stack)).size).toBe(1);
    expect(drawn[0]!.data).toEqual([100, 0, 5]);
    expect(drawn[2]!.data).toEqual([1.5, 0, 2.25]);
    expect(drawn[2]!.itemStyle?.color).toBe(UNALLOCATED_COLOR);
    expect((option.xAxis as { data: string[] }).data).toEqual(BUCKETS);
  });

  it('fills days a group has no point for with zero', () => {
    const sparse: CostGroup = { ...group('a', 'A', ['4.00']), series: [{ period_start: '2026-11-02', cost: '4.00' }] };
    const [only] = spendSeries({ buckets: BUCKETS, groups: [sparse] }, LABELS);
    expect(only!.costs).toEqual(['0.00', '4.00', '0.00']);
  });

  it('sums the groups past the largest ones into one "other" series, exactly', () => {
    const many = Array.from({ length: MAX_SERIES + 3 }, (_, i) => group(`p${i}`, `P${i}`, [`${100 - i}.10`, '0.00', '0.01']));
    const series = spendSeries({ buckets: BUCKETS, groups: many }, LABELS);
    expect(series).toHaveLength(MAX_SERIES + 1);
    const other = series[MAX_SERIES]!;
    expect(other.kind).toBe('other');
    // The three smallest: 100-8, 100-9, 100-10 (.10 each) = 273.30 on the first day.
    expect(other.costs).toEqual(['273.30', '0.00', '0.03']);
    expect(other.total).toBe('273.33');
  });

  it('lists each series and the day total in money in the tooltip', () => {
    const series = spendSeries({ buckets: BUCKETS, groups }, LABELS);
    const option = spendOverTimeOption(BUCKETS, series, 'CNY', 'Total');
    const formatter = (option.tooltip as { formatter: (p: unknown) => string }).formatter;
    const text = formatter(series.map((s, i) => ({ seriesName: s.name, seriesIndex: i, dataIndex: 0, axisValueLabel: '2026-11-01' })));
    expect(text).toContain('Vision: ¥100.00');
    expect(text).toContain('Unallocated: ¥1.50');
    expect(text).toContain('Total: ¥111.50');
  });
});

const USAGE: Pick<Usage, 'phases'> = {
  phases: [
    { phase: 'training', minutes: 600, gpu_hours: '10.0000', cost: '100.10' },
    { phase: 'idle', minutes: 300, gpu_hours: '5.0000', cost: '50.05' },
    { phase: 'data_processing', minutes: 60, gpu_hours: '1.0000', cost: '10.01' },
    { phase: 'evaluation', minutes: 0, gpu_hours: '0.0000', cost: '0.00' },
    { phase: 'unknown', minutes: 30, gpu_hours: '0.5000', cost: '0.00' },
  ],
};

describe('phase breakdown', () => {
  it('calls idle and data-bound money waste, summed exactly', () => {
    const rows = phaseRows(USAGE);
    expect(rows.map((r) => [r.phase, r.waste])).toEqual([
      ['training', false],
      ['data_processing', true],
      ['idle', true],
      ['unknown', false],
    ]);
    expect(wasteMoney(rows)).toEqual({ wasted: '60.06', total: '160.16' });
  });

  it('draws money and GPU-hours per phase and labels waste bars with their money', () => {
    const rows = phaseRows(USAGE);
    const option = phaseBreakdownOption(rows, 'CNY', { money: 'Money', gpuHours: 'GPU-hours', waste: 'Waste' });
    const [money, hours] = option.series as {
      data: ({ value: number; itemStyle: { decal?: unknown } } | number)[];
      label: { formatter: (p: unknown) => string };
    }[];
    expect(money!.data.map((d) => (d as { value: number }).value)).toEqual([100.1, 10.01, 50.05, 0]);
    expect(hours!.data).toEqual([10, 1, 5, 0.5]);
    expect((money!.data[2] as { itemStyle: { decal?: unknown } }).itemStyle.decal).toBeDefined();
    expect((money!.data[0] as { itemStyle: { decal?: unknown } }).itemStyle.decal).toBeUndefined();
    expect(money!.label.formatter({ dataIndex: 2 })).toBe('¥50.05 · Waste');
    expect(money!.label.formatter({ dataIndex: 0 })).toBe('¥100.10');
  });
});

function cell(weekday: number, hour: number, pct: number | null, gpuHours = 2): HourOfWeekCell {
  return { weekday, hour, instance_hours: 1, gpu_hours: gpuHours, gpu_busy_hours: ((pct ?? 0) * gpuHours) / 100, gpu_util_avg_pct: pct };
}

describe('fleet heatmap', () => {
  it('draws each cell at its local weekday and hour, Monday on top, and skips cells without GPU-hours', () => {
    // The API places cells in the organization's timezone: Monday 00:00 and Sunday 23:00 local.
    const cells = [cell(0, 0, 75), cell(6, 23, 25.04), cell(2, 9, null, 0)];
    expect(heatmapPoints(cells)).toEqual([
      [0, 6, 75],
      [23, 0, 25],
    ]);
    const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
    const option = fleetHeatmapOption(cells, days, {
      utilization: 'GPU utilization',
      cell: (when, pct, hours) => `${when.day} ${when.hour} ${pct}% ${hours}`,
    });
    expect((option.xAxis as { data: string[] }).data).toHaveLength(24);
    expect((option.yAxis as { data: string[] }).data).toEqual([...days].reverse());
    const [series] = option.series as { type: string; data: number[][] }[];
    expect(series!.type).toBe('heatmap');
    expect(series!.data).toHaveLength(2);
    const formatter = (option.tooltip as { formatter: (p: unknown) => string }).formatter;
    expect(formatter({ value: [23, 0, 25] })).toBe('Sun 23:00 25.0% 2.0');
  });

  it('draws idle hours apart from the dark card in the dark theme', () => {
    const labels = { utilization: 'GPU utilization', cell: () => '' };
    const rampOf = (theme: 'light' | 'dark') => {
      const option = fleetHeatmapOption([], ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'], labels, theme);
      return (option.visualMap as { inRange: { color: string[] } }).inRange.color.map(
        (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as unknown as Rgb,
      );
    };
    const [darkLow, darkHigh] = rampOf('dark');
    expect(contrastRatio(darkLow!, CARD_SURFACE.dark)).toBeGreaterThanOrEqual(3);
    expect(contrastRatio(darkLow!, darkHigh!)).toBeGreaterThan(3);
    // The light theme keeps its white-to-blue scale.
    expect(rampOf('light')).toEqual([HEAT_SCALES.light.low, HEAT_SCALES.light.high]);
  });
});

describe('month-to-date comparison', () => {
  it('compares the complete days with the same days of last month, clipped to its length', () => {
    expect(sameDaysLastMonth({ month_start: '2026-03-01', today: '2026-03-31' })).toEqual({
      days: 30,
      current: { start: '2026-03-01', end: '2026-03-30' },
      previous: { start: '2026-02-01', end: '2026-02-28' },
    });
    expect(sameDaysLastMonth({ month_start: '2026-01-01', today: '2026-01-11' })?.previous).toEqual({
      start: '2025-12-01',
      end: '2025-12-10',
    });
    expect(sameDaysLastMonth({ month_start: '2026-11-01', today: '2026-11-01' })).toBeNull();
  });

  it('computes the change as a fraction of last month, none without a last month', () => {
    expect(changeRatio('120.00', '100.00')).toBeCloseTo(0.2);
    expect(changeRatio('80.00', '100.00')).toBeCloseTo(-0.2);
    expect(changeRatio('80.00', '0.00')).toBeNull();
  });
});

function account(overrides: Partial<CloudAccount>): CloudAccount {
  return {
    id: 1,
    name: 'Main',
    provider: 'tencent',
    secret_id: 'AKID',
    regions: ['ap-shanghai'],
    site: 'china',
    endpoint: '',
    endpoint_scheme: 'https',
    currency: 'CNY',
    status: 'ok',
    last_error: '',
    last_error_at: null,
    sync: [],
    created_at: '2026-10-01T00:00:00Z',
    ...overrides,
  } as CloudAccount;
}

describe('sync health', () => {
  it('finds the latest success and the failing accounts with their error', () => {
    const health = syncHealth([
      account({
        id: 1,
        sync: [
          { kind: 'bills', last_success_at: '2026-11-30T01:00:00Z', next_run_at: null, last_error: '', progress: null },
          { kind: 'metrics', last_success_at: '2026-11-30T09:00:00Z', next_run_at: null, last_error: '', progress: null },
        ],
      }),
      account({
        id: 2,
        name: 'Lab',
        status: 'failing',
        last_error: 'AuthFailure: the SecretId is not found',
        sync: [{ kind: 'inventory', last_success_at: '2026-11-29T00:00:00Z', next_run_at: null, last_error: 'AuthFailure', progress: null }],
      }),
      account({ id: 3, status: 'disabled', sync: [{ kind: 'bills', last_success_at: '2026-12-01T00:00:00Z', next_run_at: null, last_error: '', progress: null }] }),
    ]);
    expect(health.accounts).toBe(2);
    expect(health.lastSuccessAt).toBe('2026-11-30T09:00:00Z');
    expect(health.failing).toEqual([{ id: 2, name: 'Lab', error: 'AuthFailure: the SecretId is not found', kinds: ['inventory'] }]);
  });
});

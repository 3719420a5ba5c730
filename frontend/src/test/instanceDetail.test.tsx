import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CARD_SURFACE, contrastRatio, type Rgb } from '../heatScale';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { emptyPage, makeMe, mockApi, type MockResponse } from './mockApi';
import type { Instance, InstancePhases, InstanceProfile, WeekGrid, CostReport, Timeseries } from '../api/types';
import type { ChartOption } from '../components/Chart';

// The ECharts canvas cannot be drawn in happy-dom: record what each chart is given instead.
const charts = vi.hoisted(
  () =>
    [] as {
      ariaLabel?: string;
      name?: string;
      option: ChartOption;
      onZoom?: (window: { startPct: number; endPct: number }) => void;
    }[],
);
vi.mock('../components/Chart', async () => {
  const { createElement } = await import('react');
  return {
    Chart: ({
      option,
      ariaLabel,
      name,
      dataAttributes,
      onZoom,
    }: {
      option: ChartOption;
      ariaLabel?: string;
      name?: string;
      dataAttributes?: Record<string, string | number>;
      onZoom?: (window: { startPct: number; endPct: number }) => void;
    }) => {
      charts.push({ ariaLabel, name, option, onZoom });
      return createElement('div', { 'data-testid': 'chart', role: 'img', 'aria-label': ariaLabel, 'data-chart': name, ...dataAttributes });
    },
  };
});

/** The last option a named chart was given. */
function chartOption(name: string): ChartOption {
  const found = charts.filter((c) => c.name === name).pop();
  if (!found) throw new Error(`No chart ${name}`);
  return found.option;
}

const NOW = new Date('2026-10-27T08:35:12Z');

const INSTANCE: Instance = {
  id: 1,
  provider_id: 'ins-9bxebleo',
  name: 'train-t4-01',
  region: 'ap-guangzhou',
  zone: 'ap-guangzhou-3',
  instance_type: 'GN7.2XLARGE32',
  gpu_model: 'NVIDIA T4',
  gpu_count: 1,
  gpu_memory_gb: 16,
  cpu_cores: 8,
  memory_gb: 32,
  charge_type: 'POSTPAID_BY_HOUR',
  state: 'RUNNING',
  tags: { team: 'nlp' },
  project: 'NLP',
  launched_at: '2025-05-01T00:00:00Z',
  expires_at: null,
  terminated_at: null,
};

function phases(overrides: Partial<InstancePhases> = {}): InstancePhases {
  return {
    instance_id: 1,
    start: '2026-10-26T08:00:00Z',
    end: '2026-10-27T08:00:00Z',
    currency: 'CNY',
    cost_source: 'bills',
    cost: '26.05',
    idle_cost: '3.10',
    data_bound_cost: '1.95',
    totals: {
      unknown: { minutes: 20, gpu_hours: '0.3333', cost: '0.00' },
      idle: { minutes: 60, gpu_hours: '1.0000', cost: '3.10' },
      data_processing: { minutes: 40, gpu_hours: '0.6667', cost: '1.95' },
      evaluation: { minutes: 30, gpu_hours: '0.5000', cost: '1.46' },
      training: { minutes: 135, gpu_hours: '2.2500', cost: '19.54' },
    },
    no_data: [
      { reason: 'no_metrics', minutes: 20, gpu_hours: '0.3333', cost: '0.00' },
      { reason: 'stopped', minutes: 0, gpu_hours: '0.0000', cost: '0.00' },
      { reason: 'not_analysed', minutes: 0, gpu_hours: '0.0000', cost: '0.00' },
    ],
    evidence: { full_evidence_minutes: 0, unseparated_phases: [] },
    segments: [
      { phase: 'unknown', start_at: '2026-10-26T08:00:00Z', end_at: '2026-10-26T08:20:00Z', minutes: 20, mean_gpu_util_pct: null, missing_metrics: [], unseparated_phases: [] },
      { phase: 'training', start_at: '2026-10-26T08:20:00Z', end_at: '2026-10-26T09:35:00Z', minutes: 75, mean_gpu_util_pct: 75.8, missing_metrics: [], unseparated_phases: [] },
      { phase: 'evaluation', start_at: '2026-10-26T09:35:00Z', end_at: '2026-10-26T10:05:00Z', minutes: 30, mean_gpu_util_pct: 48.2, missing_metrics: [], unseparated_phases: [] },
      { phase: 'data_processing', start_at: '2026-10-26T10:05:00Z', end_at: '2026-10-26T10:45:00Z', minutes: 40, mean_gpu_util_pct: 9.1, missing_metrics: [], unseparated_phases: [] },
      { phase: 'training', start_at: '2026-10-26T10:45:00Z', end_at: '2026-10-26T11:45:00Z', minutes: 60, mean_gpu_util_pct: 80.2, missing_metrics: [], unseparated_phases: [] },
      { phase: 'idle', start_at: '2026-10-26T11:45:00Z', end_at: '2026-10-26T12:45:00Z', minutes: 60, mean_gpu_util_pct: 0.4, missing_metrics: [], unseparated_phases: [] },
    ],
    ...overrides,
  };
}

/** p95 of 80 % on weekdays 09:00-19:00, 5 % otherwise; Sunday 03:00 has no data. */
function grid(): WeekGrid {
  return Array.from({ length: 7 }, (_, d) =>
    Array.from({ length: 24 }, (_, h) => (d === 6 && h === 3 ? null : d < 5 && h >= 9 && h < 19 ? 80 : 5)),
  );
}

/** Off Friday 19:00 to Monday 09:00 and on weekday nights 19:00-09:00 (62 + 4 x 14 = 118 h a week). */
const OFF_WINDOW = {
  runs: [
    ...[0, 1, 2, 3].map((d) => ({
      start_weekday: d,
      start_hour: 19,
      end_weekday: d + 1,
      end_hour: 9,
      hours: 14,
      label: `${['Mon', 'Tue', 'Wed', 'Thu'][d]} 19:00-${['Tue', 'Wed', 'Thu', 'Fri'][d]} 09:00`,
    })),
    { start_weekday: 4, start_hour: 19, end_weekday: 0, end_hour: 9, hours: 62, label: 'Fri 19:00-Mon 09:00' },
  ],
  weekly_hours: 118,
  longest_run_hours: 62,
  supporting_weeks: 2,
  observed_weeks: 2,
  p95_max_pct: 15.0,
  text: 'Fri 19:00-Mon 09:00 and weeknights 19:00-09:00',
  description: 'Off window Fri 19:00-Mon 09:00 and weeknights 19:00-09:00 (118 h/week, Asia/Shanghai)',
};

function profile(overrides: Partial<InstanceProfile> = {}): InstanceProfile {
  return {
    instance_id: 1,
    analysed: true,
    tz: 'Asia/Shanghai',
    start_at: '2026-10-13T00:00:00Z',
    end_at: '2026-10-27T00:00:00Z',
    computed_at: '2026-10-27T02:00:00Z',
    median_pct: grid(),
    p95_pct: grid(),
    coverage: Array.from({ length: 7 }, () => Array.from({ length: 24 }, () => 1)),
    off_window: OFF_WINDOW,
    low_around_the_clock: null,
    ...overrides,
  };
}

const NOT_ANALYSED: InstanceProfile = {
  instance_id: 1,
  analysed: false,
  tz: 'Asia/Shanghai',
  start_at: null,
  end_at: null,
  computed_at: null,
  median_pct: null,
  p95_pct: null,
  coverage: null,
  off_window: null,
  low_around_the_clock: null,
};

/** Hourly points over the phases' day: busy while training, quiet when idle; the 11:00 hour missing. */
function timeseries(overrides: Partial<Timeseries> = {}): Timeseries {
  const hours = [8, 9, 10, 12];
  return {
    instance_id: 1,
    start: '2026-10-20T16:00:00Z',
    end: '2026-10-27T16:00:00Z',
    resolution: 'hour',
    max_points: 1500,
    points: hours.map((h) => ({
      t: `2026-10-26T${String(h).padStart(2, '0')}:00:00Z`,
      gpu_util_pct: h === 12 ? 0.4 : 76,
      gpu_util_p95_pct: null,
      gpu_util_max_pct: null,
      gpu_mem_used_pct: 55,
      cpu_util_pct: 12,
      gpu_temp_c: h === 12 ? 38 : 71,
      observed_minutes: 60,
    })),
    ...overrides,
  };
}

const DAYS = ['2026-10-21', '2026-10-22', '2026-10-23', '2026-10-24', '2026-10-25', '2026-10-26', '2026-10-27'];

function costGroup(phase: string, perDay: string[]) {
  return {
    keys: [{ dimension: 'phase', value: phase, label: phase }],
    cost: perDay.reduce((a, b) => a + Number(b), 0).toFixed(2),
    previous_cost: '0.00',
    series: DAYS.map((day, i) => ({ period_start: day, cost: perDay[i] ?? '0.00' })),
  };
}

function dailyCost(overrides: Partial<CostReport> = {}): CostReport {
  return {
    basis: 'amortized',
    start: DAYS[0]!,
    end: DAYS[6]!,
    timezone: 'Asia/Shanghai',
    granularity: 'day',
    group_by: ['phase'],
    filters: { instance: ['ins-9bxebleo'] },
    currency: 'CNY',
    buckets: DAYS,
    total: '26.05',
    previous_period: { start: '2026-10-14', end: '2026-10-20', cost: '0.00' },
    unallocated: { cost: '0.00', share_pct: null, by_reason: [] },
    month_to_date: {
      month: '2026-10',
      month_start: '2026-10-01',
      month_end: '2026-10-31',
      today: '2026-10-27',
      cost: '26.05',
      cost_before_today: '26.05',
      run_rate_daily: '3.72',
      run_rate_days: 7,
      days_left: 5,
      known_purchases: '0.00',
      forecast: '44.65',
      method: '',
    },
    groups: [
      costGroup('training', ['0', '0', '0', '0', '0', '19.54', '0']),
      costGroup('evaluation', ['0', '0', '0', '0', '0', '1.46', '0']),
      costGroup('idle', ['0', '0', '0', '0', '0', '3.10', '0']),
      costGroup('data_processing', ['0', '0', '0', '0', '0', '1.95', '0']),
    ],
    ...overrides,
  } as CostReport;
}

const RECOMMENDATION = {
  id: 11,
  kind: 'schedule',
  kind_label: 'Day/night schedule',
  status: 'open',
  status_reason: '',
  snoozed_until: null,
  target: 'instance',
  instance: 1,
  cloud_instance_id: 'ins-9bxebleo',
  instance_name: 'train-t4-01',
  members: [],
  project: 3,
  project_name: 'NLP',
  title: 'Stop train-t4-01 on weekday nights and weekends',
  explanation: '',
  saving: { monthly_amount: '812.40', currency: 'CNY', formula: '', price_source: 'bills' },
  paid_while_waiting: null,
  upsize: null,
  confidence: { level: 'high', evidence_days: 13.75, coverage_pct: 98.2 },
  risk: { level: 1, reason: '' },
  first_seen_at: '2026-10-20T02:00:00Z',
  last_seen_at: '2026-10-27T02:00:00Z',
  accepted_at: null,
  resolved_at: null,
};

type Routes = Parameters<typeof mockApi>[0];

function routes(overrides: Routes = {}): Routes {
  return {
    'GET /api/v1/me': { body: makeMe() },
    'GET /api/v1/instances/1': { body: INSTANCE },
    'GET /api/v1/instances/1/phases': { body: phases() },
    'GET /api/v1/instances/1/profile': { body: profile() },
    'GET /api/v1/instances/1/timeseries': { body: timeseries() },
    'GET /api/v1/costs': { body: dailyCost() },
    'GET /api/v1/recommendations': { body: { ...emptyPage, count: 1, results: [RECOMMENDATION] } },
    ...overrides,
  };
}

function rowTexts(row: HTMLElement): string[] {
  return Array.from(row.querySelectorAll('th, td')).map((c) => c.textContent ?? '');
}

beforeEach(() => {
  charts.length = 0;
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});

afterEach(() => {
  vi.useRealTimers();
});

describe('instance detail page', () => {
  it('is linked from the instances table and shows the instance in words', async () => {
    mockApi(
      routes({
        'GET /api/v1/projects': { body: emptyPage },
        'GET /api/v1/instances': { body: { ...emptyPage, count: 1, results: [INSTANCE] } },
        // The Instances table reads the usage list (one row of the same instance).
        'GET /api/v1/usage/instances': {
          body: {
            ...emptyPage,
            count: 1,
            start: '2026-11-01',
            end: '2026-11-07',
            timezone: 'Asia/Shanghai',
            currency: 'CNY',
            ordering: '-cost',
            days: [],
            facets: { instance_type: [], gpu_model: [], charge_type: [], state: [], region: [] },
            results: [
              {
                id: 1,
                provider_id: 'ins-9bxebleo',
                name: 'train-t4-01',
                project: { slug: 'nlp', name: 'NLP' },
                instance_type: 'GN7.2XLARGE32',
                gpu_model: 'NVIDIA T4',
                gpu_count: 1,
                charge_type: 'POSTPAID_BY_HOUR',
                state: 'RUNNING',
                region: 'ap-guangzhou',
                tags: {},
                cost: '0',
                waste: null,
                gpu_util_avg_pct: null,
                gpu_hours: 0,
                util_daily: [],
              },
            ],
          },
        },
      }),
    );
    const user = userEvent.setup();
    renderAppAt('/instances');

    const link = await screen.findByRole('link', { name: 'train-t4-01' });
    expect(link.getAttribute('href')).toBe('/instances/1');
    await user.click(link);

    expect(await screen.findByRole('heading', { level: 1, name: 'train-t4-01' })).toBeTruthy();
    expect(window.location.pathname).toBe('/instances/1');
    expect(screen.getByTestId('fact-provider-id').textContent).toBe('ins-9bxebleo');
    expect(screen.getByTestId('fact-type').textContent).toBe('GN7.2XLARGE32');
    expect(screen.getByTestId('fact-gpus').textContent).toBe('1 x NVIDIA T4 (16 GB)');
    expect(screen.getByTestId('fact-billing').textContent).toBe('Pay-as-you-go');
    expect(screen.getByTestId('fact-project').textContent).toBe('NLP');
    expect(screen.getByRole('link', { name: '← Instances' }).getAttribute('href')).toBe('/instances');
  });

  it('shows money per phase, the waste cards and a timeline of the last 7 days', async () => {
    const server = mockApi(routes());
    renderAppAt('/instances/1');

    const table = await screen.findByRole('table', { name: 'Totals by phase' });
    expect(rowTexts(within(table).getByTestId('phase-row-training'))).toEqual([
      'Training',
      '2 h 15 m',
      '2.25',
      '¥19.54',
      '75.0%',
    ]);
    expect(rowTexts(within(table).getByTestId('phase-row-idle'))).toEqual(['Idle', '1 h', '1.00', '¥3.10', '11.9%']);
    expect(rowTexts(within(table).getByTestId('phase-row-data_processing'))).toEqual([
      'Data processing (data-bound)',
      '40 m',
      '0.67',
      '¥1.95',
      '7.5%',
    ]);
    expect(rowTexts(within(table).getByTestId('phase-row-unknown'))).toEqual(['No data', '20 m', '0.33', '¥0.00', '0.0%']);
    // "No data" says why: here samples were missing while the instance ran (the only reason with minutes).
    expect(rowTexts(within(table).getByTestId('no-data-row-no_metrics'))).toEqual([
      'No metrics (running, no samples)',
      '20 m',
      '0.33',
      '¥0.00',
      '0.0%',
    ]);
    expect(within(table).queryByTestId('no-data-row-stopped')).toBeNull();
    expect(within(table).queryByTestId('no-data-row-not_analysed')).toBeNull();
    // Display order: productive work, waste, then missing data.
    expect(within(table).getAllByRole('row').slice(1, 6).map((r) => r.firstChild?.textContent)).toEqual([
      'Training',
      'Evaluation',
      'Data processing (data-bound)',
      'Idle',
      'No data',
    ]);
    // GPU-hours summed exactly: 0.3333 + 1 + 0.6667 + 0.5 + 2.25 = 4.75.
    expect(rowTexts(within(table).getByTestId('phase-row-total'))).toEqual(['Total', '4 h 45 m', '4.75', '¥26.05', '100.0%']);

    expect(screen.getByTestId('stat-cost').textContent).toContain('¥26.05');
    const idle = screen.getByTestId('stat-idle');
    expect(idle.textContent).toContain('waste');
    expect(idle.textContent).toContain('¥3.10');
    expect(idle.textContent).toContain('11.9% of cost');
    const dataBound = screen.getByTestId('stat-data-bound');
    expect(dataBound.textContent).toContain('waste');
    expect(dataBound.textContent).toContain('¥1.95');
    expect(dataBound.textContent).toContain('40 m waiting for data');
    expect(screen.queryByTestId('cost-source-note')).toBeNull();
    expect(screen.getByTestId('phases-period').textContent).toBe('26 Oct 2026, 16:00 – 27 Oct 2026, 16:00 (Asia/Shanghai)');

    // The request covers the last 7 calendar days in the organization's timezone, today included: at
    // 08:35 UTC it is already 16:35 on 27 Oct in Shanghai. The API reads naive dates in that timezone.
    const call = server.find('GET', '/api/v1/instances/1/phases')[0]!;
    expect(call.query.get('start')).toBe('2026-10-21');
    expect(call.query.get('end')).toBe('2026-10-28');
    expect(screen.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('date-range-shown').textContent).toBe('21 Oct 2026 – 27 Oct 2026 (Asia/Shanghai)');

    // The time series covers the same days; its phase bands are the segments, adjacent ones of a phase merged.
    const series = server.find('GET', '/api/v1/instances/1/timeseries')[0]!;
    expect([series.query.get('start'), series.query.get('end')]).toEqual(['2026-10-21', '2026-10-28']);
    const chart = await screen.findByRole('img', {
      name: 'GPU utilization, GPU memory, CPU and temperature over time, with phase bands, times in Asia/Shanghai',
    });
    expect(chart.getAttribute('data-chart')).toBe('instance-timeseries');
    // Six segments, none adjacent to one of its own phase: six bands.
    expect(chart.getAttribute('data-phase-bands')).toBe('6');
    expect(
      within(screen.getByRole('list', { name: 'Legend' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Training', 'Evaluation', 'Data processing (data-bound)', 'Idle', 'No data']);
    const option = chartOption('instance-timeseries');
    const lines = option.series as { name: string; type: string; data: [number, number | null][]; markArea?: { data: unknown[] } }[];
    expect(lines.map((l) => l.name)).toEqual(['GPU utilization', 'GPU memory', 'CPU', 'GPU temperature']);
    // The missing 11:00 hour breaks the line.
    expect(lines[0]!.data.map(([, v]) => v)).toEqual([76, 76, 76, null, 0.4]);
    expect(lines[3]!.data.at(-1)).toEqual([Date.parse('2026-10-26T12:00:00Z'), 38]);
    expect(lines[0]!.markArea!.data).toHaveLength(6);
    expect((option.dataZoom as { type: string }[]).map((z) => z.type)).toEqual(['inside', 'slider']);
    expect(option.xAxis).toMatchObject({
      type: 'time',
      min: Date.parse('2026-10-20T16:00:00Z'),
      max: Date.parse('2026-10-27T16:00:00Z'),
    });
    expect(screen.getByTestId('timeseries-resolution').textContent).toContain('Hourly averages');
    expect(screen.queryByTestId('phase-bands-capped')).toBeNull();
  });

  it('fetches the zoomed window again at minute resolution, never more points than the API allows', async () => {
    const fine = timeseries({
      start: '2026-10-26T08:00:00Z',
      end: '2026-10-26T10:00:00Z',
      resolution: 'minute',
      points: [0, 1, 2].map((m) => ({
        t: `2026-10-26T09:0${m}:00Z`,
        gpu_util_pct: 90 + m,
        gpu_util_p95_pct: null,
        gpu_util_max_pct: null,
        gpu_mem_used_pct: 50,
        cpu_util_pct: 10,
        gpu_temp_c: 70,
        observed_minutes: 1,
      })),
    });
    const server = mockApi(
      routes({
        'GET /api/v1/instances/1/timeseries': (call) => ({ body: call.query.get('start')?.includes('T') ? fine : timeseries() }),
      }),
    );
    renderAppAt('/instances/1');
    await screen.findByRole('img', { name: /GPU utilization, GPU memory/ });

    // Zoom the week's axis to 26 Oct 08:00-10:00 UTC: two hours, which minutes fit.
    const week = [Date.parse('2026-10-20T16:00:00Z'), Date.parse('2026-10-27T16:00:00Z')] as const;
    const pct = (ms: number) => ((ms - week[0]) / (week[1] - week[0])) * 100;
    const zoomTo = charts.filter((c) => c.name === 'instance-timeseries').pop()!.onZoom!;
    act(() => zoomTo({ startPct: pct(Date.parse('2026-10-26T08:00:00Z')), endPct: pct(Date.parse('2026-10-26T10:00:00Z')) }));

    await waitFor(() => expect(server.find('GET', '/api/v1/instances/1/timeseries')).toHaveLength(2));
    const detail = server.find('GET', '/api/v1/instances/1/timeseries')[1]!;
    expect([detail.query.get('start'), detail.query.get('end')]).toEqual(['2026-10-26T08:00:00.000Z', '2026-10-26T10:00:00.000Z']);
    await waitFor(() => expect(screen.getByTestId('timeseries-resolution').textContent).toContain('One point a minute'));
    const option = chartOption('instance-timeseries');
    const gpu = (option.series as { data: [number, number | null][] }[])[0]!.data;
    // The hourly 08:00 point gave way to the minutes inside the window; the 12:00 hour outside stays.
    expect(gpu.map(([t, v]) => [new Date(t).toISOString().slice(11, 16), v])).toEqual([
      ['09:00', 90],
      ['09:01', 91],
      ['09:02', 92],
      // Outside the window, the coarse hours again (the missing 11:00 still breaks the line).
      ['10:00', 76],
      ['11:00', null],
      ['12:00', 0.4],
    ]);
    expect(option.dataZoom).toMatchObject([{ startValue: Date.parse('2026-10-26T08:00:00Z') }, { endValue: Date.parse('2026-10-26T10:00:00Z') }]);
  });

  it('merges adjacent bands of a phase and says when it draws only the longest', async () => {
    // 400 alternating 10-minute periods, then two training periods back to back (one band).
    const many = Array.from({ length: 400 }, (_, i) => ({
      phase: (i % 2 ? 'idle' : 'training') as 'idle' | 'training',
      start_at: new Date(Date.parse('2026-10-21T00:00:00Z') + i * 600_000).toISOString(),
      end_at: new Date(Date.parse('2026-10-21T00:00:00Z') + (i + 1) * 600_000).toISOString(),
      minutes: 10,
      mean_gpu_util_pct: null,
      missing_metrics: [],
      unseparated_phases: [],
    }));
    const merged = [
      { phase: 'evaluation' as const, start_at: '2026-10-26T08:00:00Z', end_at: '2026-10-26T09:00:00Z', minutes: 60, mean_gpu_util_pct: 50, missing_metrics: [], unseparated_phases: [] },
      { phase: 'evaluation' as const, start_at: '2026-10-26T09:00:00Z', end_at: '2026-10-26T10:00:00Z', minutes: 60, mean_gpu_util_pct: 50, missing_metrics: [], unseparated_phases: [] },
    ];
    mockApi(routes({ 'GET /api/v1/instances/1/phases': { body: phases({ segments: [...many, ...merged] }) } }));
    renderAppAt('/instances/1');

    const chart = await screen.findByRole('img', { name: /GPU utilization, GPU memory/ });
    expect(chart.getAttribute('data-phase-bands')).toBe('300');
    expect(screen.getByTestId('phase-bands-capped').textContent).toBe(
      'Phase bands: the 300 longest of 401 periods are drawn; zoom into a shorter range to see the rest.',
    );
    // The two evaluation hours are one band, and the longest: it is kept.
    const areas = (chartOption('instance-timeseries').series as { markArea?: { data: [{ xAxis: number }, { xAxis: number }][] } }[])[0]!
      .markArea!.data;
    expect(areas.map(([a, b]) => [a.xAxis, b.xAxis])).toContainEqual([
      Date.parse('2026-10-26T08:00:00Z'),
      Date.parse('2026-10-26T10:00:00Z'),
    ]);
  });

  it('shows the daily cost stacked by phase for this instance', async () => {
    const server = mockApi(routes());
    renderAppAt('/instances/1');

    const chart = await screen.findByRole('img', { name: 'Daily cost of this instance by phase (CNY)' });
    expect(chart.getAttribute('data-chart')).toBe('instance-daily-cost');
    const call = server.find('GET', '/api/v1/costs')[0]!;
    expect(Object.fromEntries(call.query)).toEqual({
      granularity: 'day',
      start: '2026-10-21',
      end: '2026-10-27',
      instance: 'ins-9bxebleo',
      group_by: 'phase',
    });
    const bars = chartOption('instance-daily-cost').series as { name: string; stack: string; data: number[] }[];
    expect(bars.map((b) => b.name)).toEqual(['Training', 'Evaluation', 'Data processing (data-bound)', 'Idle']);
    expect(bars.every((b) => b.stack === 'cost')).toBe(true);
    expect(bars[0]!.data).toEqual([0, 0, 0, 0, 0, 19.54, 0]);
    expect(screen.getByTestId('daily-cost-total').textContent).toBe('¥26.05 in this period');
  });

  it('says when no bill names the instance in the period', async () => {
    mockApi(routes({ 'GET /api/v1/costs': { body: dailyCost({ total: '0.00', groups: [] }) } }));
    renderAppAt('/instances/1');

    // Two round trips (the instance, then its cost): a busy machine may take more than the default second.
    expect((await screen.findByTestId('daily-cost-empty', {}, { timeout: 5000 })).textContent).toContain('No cost in this period');
    expect(screen.queryByRole('img', { name: /Daily cost/ })).toBeNull();
  });

  it('lists its recommendations, linked to their pages, its tags and facts', async () => {
    const server = mockApi(routes());
    renderAppAt('/instances/1');

    const link = await screen.findByRole('link', { name: RECOMMENDATION.title });
    expect(link.getAttribute('href')).toBe('/recommendations/11');
    expect(screen.getByTestId('instance-recommendations').textContent).toContain('saves ¥812.40 a month');
    expect(server.find('GET', '/api/v1/recommendations')[0]!.query.get('instance')).toBe('1');
    expect(screen.getByTestId('instance-tags').textContent).toBe('team=nlp');
    expect(screen.getByTestId('fact-cpu').textContent).toBe('8 vCPU · 32 GB');
    expect(screen.getByTestId('fact-state').textContent).toBe('Running');
    expect(screen.queryByTestId('terminated-notice')).toBeNull();
  });

  it('says a terminated instance was terminated, with its lifetime', async () => {
    const gone = { ...INSTANCE, state: 'TERMINATED', launched_at: '2026-09-01T02:00:00Z', terminated_at: '2026-10-12T02:00:00Z' };
    mockApi(
      routes({
        'GET /api/v1/instances/1': { body: gone },
        'GET /api/v1/recommendations': { body: emptyPage },
      }),
    );
    renderAppAt('/instances/1');

    const notice = await screen.findByTestId('terminated-notice');
    expect(notice.textContent).toContain('This instance was terminated');
    expect(notice.textContent).toContain('1 Sept 2026, 10:00 to 12 Oct 2026, 10:00 (41 days)');
    expect(screen.getByTestId('instance-recs-none').textContent).toBe('No open recommendation for this instance.');
  });

  it('changes the period: a preset or custom days are a new request and stay in the URL', async () => {
    const server = mockApi(routes());
    const user = userEvent.setup();
    renderAppAt('/instances/1');
    await screen.findByRole('table', { name: 'Totals by phase' });
    // The phases endpoint answers at most 31 days: no 90-day preset here.
    expect(screen.queryByRole('button', { name: 'Last 90 days' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Last 30 days' }));
    await waitFor(() => expect(server.find('GET', '/api/v1/instances/1/phases')).toHaveLength(2));
    const thirty = server.find('GET', '/api/v1/instances/1/phases')[1]!;
    expect([thirty.query.get('start'), thirty.query.get('end')]).toEqual(['2026-09-28', '2026-10-28']);
    expect(window.location.search).toBe('?range=30d');
    expect(screen.getByRole('button', { name: 'Last 30 days' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed')).toBe('false');

    await user.click(screen.getByRole('button', { name: 'Last month' }));
    await waitFor(() => expect(server.find('GET', '/api/v1/instances/1/phases')).toHaveLength(3));
    const lastMonth = server.find('GET', '/api/v1/instances/1/phases')[2]!;
    expect([lastMonth.query.get('start'), lastMonth.query.get('end')]).toEqual(['2026-09-01', '2026-10-01']);

    await user.click(screen.getByRole('button', { name: 'Custom' }));
    const from = screen.getByLabelText('From');
    const to = screen.getByLabelText('To');
    await user.clear(from);
    await user.type(from, '2026-08-01');
    await user.clear(to);
    await user.type(to, '2026-10-15');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    // 76 days is more than the page can ask for: said, and nothing is requested.
    expect((await screen.findByRole('alert')).textContent).toBe('The period may be at most 31 days.');
    expect(server.find('GET', '/api/v1/instances/1/phases')).toHaveLength(3);

    await user.clear(from);
    await user.type(from, '2026-10-01');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(server.find('GET', '/api/v1/instances/1/phases')).toHaveLength(4));
    const custom = server.find('GET', '/api/v1/instances/1/phases')[3]!;
    expect([custom.query.get('start'), custom.query.get('end')]).toEqual(['2026-10-01', '2026-10-16']);
    expect(window.location.search).toBe('?range=custom&from=2026-10-01&to=2026-10-15');
  });

  it('opens a shared link on the range it names', async () => {
    const server = mockApi(routes());
    renderAppAt('/instances/1?range=mtd');
    await screen.findByRole('table', { name: 'Totals by phase' });

    const call = server.find('GET', '/api/v1/instances/1/phases')[0]!;
    expect([call.query.get('start'), call.query.get('end')]).toEqual(['2026-10-01', '2026-10-28']);
    expect(screen.getByRole('button', { name: 'Month to date' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('says when costs are estimated from list prices', async () => {
    mockApi(routes({ 'GET /api/v1/instances/1/phases': { body: phases({ cost_source: 'list_price' }) } }));
    renderAppAt('/instances/1');

    expect((await screen.findByTestId('cost-source-note')).textContent).toContain('estimated from list prices');
    expect(screen.getByTestId('stat-cost').textContent).toContain('¥26.05');
  });

  it('shows no money for an unpriced instance, but still its hours', async () => {
    const unpriced = phases({
      cost_source: 'unpriced',
      cost: null,
      idle_cost: null,
      data_bound_cost: null,
      totals: {
        idle: { minutes: 60, gpu_hours: '1.0000', cost: null },
        training: { minutes: 135, gpu_hours: '2.2500', cost: null },
      },
    });
    mockApi(routes({ 'GET /api/v1/instances/1/phases': { body: unpriced } }));
    renderAppAt('/instances/1');

    expect((await screen.findByTestId('cost-source-note')).textContent).toContain('No price known');
    const table = screen.getByRole('table', { name: 'Totals by phase' });
    expect(rowTexts(within(table).getByTestId('phase-row-idle'))).toEqual(['Idle', '1 h', '1.00', '—', '—']);
    expect(rowTexts(within(table).getByTestId('phase-row-total'))).toEqual(['Total', '3 h 15 m', '3.25', '—', '—']);
    expect(screen.getByTestId('stat-idle').textContent).not.toContain('¥');
    expect(screen.queryByTestId('phase-row-evaluation')).toBeNull();
  });

  it('shows the hour-of-week heatmap in the org timezone with the off window', async () => {
    mockApi(routes());
    renderAppAt('/instances/1');

    const heatmap = await screen.findByRole('table', { name: 'p95 GPU utilization by hour of week (Asia/Shanghai)' });
    const rows = within(heatmap).getAllByRole('row');
    expect(rows.map((r) => r.firstElementChild?.textContent)).toEqual([
      'Weekday',
      'Mon',
      'Tue',
      'Wed',
      'Thu',
      'Fri',
      'Sat',
      'Sun',
    ]);
    const monday = screen.getByTestId('heatmap-Mon');
    const cells = monday.querySelectorAll('td');
    expect(cells).toHaveLength(24);
    expect(cells[8]!.textContent).toBe('5');
    expect(cells[9]!.textContent).toBe('80');
    expect(cells[9]!.getAttribute('title')).toBe('Mon 09:00–10:00: p95 80%, data for 100% of the hour');
    // Off window Fri 19:00 to Mon 09:00 (exclusive): outlined.
    expect(cells[8]!.className).toContain('heatmap__cell--off');
    expect(cells[9]!.className).not.toContain('heatmap__cell--off');
    const friday = screen.getByTestId('heatmap-Fri').querySelectorAll('td');
    expect(friday[18]!.className).not.toContain('heatmap__cell--off');
    expect(friday[19]!.className).toContain('heatmap__cell--off');
    // Missing hours are blank, not zero.
    const sunday3 = screen.getByTestId('heatmap-Sun').querySelectorAll('td')[3]!;
    expect(sunday3.textContent).toBe('');
    expect(sunday3.getAttribute('title')).toBe('Sun 03:00–04:00: no data');

    const off = screen.getByTestId('off-window');
    // In plain words, not the runs' "Fri 19:00-Mon 09:00" labels.
    expect(screen.getByTestId('off-window-words').textContent).toBe(
      'Recurring low window: weekdays 19:00–09:00 and weekends',
    );
    expect(off.textContent).toContain('118 h a week');
    expect(off.textContent).toContain('seen in 2 of 2 weeks');
    expect(screen.queryByText('No recurring low window')).toBeNull();
  });

  it('keeps low cells readable in the dark theme: apart from the card, their numbers legible', async () => {
    document.documentElement.setAttribute('data-theme', 'dark');
    try {
      mockApi(routes());
      renderAppAt('/instances/1');
      await screen.findByRole('table', { name: 'p95 GPU utilization by hour of week (Asia/Shanghai)' });
      const rgbOf = (css: string) => css.match(/\d+/g)!.slice(0, 3).map(Number) as unknown as Rgb;
      const low = screen.getByTestId('heatmap-Mon').querySelectorAll('td')[8]!; // 5 %
      expect(low.textContent).toBe('5');
      const background = rgbOf(low.style.background);
      expect(contrastRatio(background, CARD_SURFACE.dark)).toBeGreaterThanOrEqual(3);
      expect(contrastRatio(background, rgbOf(low.style.color))).toBeGreaterThanOrEqual(4.5);
    } finally {
      document.documentElement.removeAttribute('data-theme');
    }
  });

  it('says when there is no recurring low window', async () => {
    mockApi(routes({ 'GET /api/v1/instances/1/profile': { body: profile({ off_window: null }) } }));
    renderAppAt('/instances/1');

    expect((await screen.findByTestId('off-window-none')).textContent).toContain('No recurring low window');
    expect(screen.queryByTestId('off-window')).toBeNull();
    expect(document.querySelectorAll('.heatmap__cell--off')).toHaveLength(0);
  });

  it('says honestly when the profile has not been analysed yet', async () => {
    mockApi(routes({ 'GET /api/v1/instances/1/profile': { body: NOT_ANALYSED } }));
    renderAppAt('/instances/1');

    expect((await screen.findByTestId('profile-not-analysed')).textContent).toContain('Not analysed yet');
    expect(screen.queryByRole('table', { name: /hour of week/ })).toBeNull();
    expect(screen.queryByText('No recurring low window')).toBeNull();
  });

  it('says when no metrics exist for the period and when the next sync brings them, without a chart', async () => {
    const inTenMinutes = new Date(NOW.getTime() + 10 * 60_000).toISOString();
    mockApi(
      routes({
        'GET /api/v1/instances/1/timeseries': { body: timeseries({ points: [] }) },
        'GET /api/v1/instances/1/phases': { body: phases({ segments: [] }) },
        'GET /api/v1/cloud-accounts': {
          body: {
            ...emptyPage,
            count: 1,
            results: [{ id: 1, sync: [{ kind: 'metrics', last_success_at: null, next_run_at: inTenMinutes, last_error: '', progress: null }] }],
          },
        },
      }),
    );
    renderAppAt('/instances/1');

    const empty = await screen.findByTestId('timeseries-empty');
    expect(empty.textContent).toContain('No metrics yet');
    await waitFor(() => expect(screen.getByTestId('next-sync').textContent).toBe('The next metrics sync runs in 10 minutes.'));
    expect(screen.queryByRole('img', { name: /GPU utilization/ })).toBeNull();
  });

  it('shows a time series error with a retry', async () => {
    let fail = true;
    mockApi(
      routes({
        'GET /api/v1/instances/1/timeseries': () =>
          fail ? { status: 500, body: { error: { code: 'error', message: 'Something went wrong.', fields: {} } } } : { body: timeseries() },
      }),
    );
    const user = userEvent.setup();
    renderAppAt('/instances/1');

    expect((await screen.findByRole('alert')).textContent).toContain('Something went wrong.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('img', { name: /GPU utilization/ })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows "Instance not found" for an unknown instance', async () => {
    const notFound: MockResponse = {
      status: 404,
      body: { error: { code: 'not_found', message: 'Not found.', fields: {} } },
    };
    mockApi(
      routes({
        'GET /api/v1/instances/1': notFound,
        'GET /api/v1/instances/1/phases': notFound,
        'GET /api/v1/instances/1/profile': notFound,
        'GET /api/v1/instances/1/timeseries': notFound,
      }),
    );
    renderAppAt('/instances/1');

    const empty = await screen.findByTestId('instance-not-found');
    expect(empty.textContent).toContain('Instance not found');
    expect(within(empty).getByRole('link', { name: 'All instances' }).getAttribute('href')).toBe('/instances');
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('treats a non-numeric id as not found without asking the API', async () => {
    const server = mockApi(routes());
    renderAppAt('/instances/abc');

    expect((await screen.findByTestId('instance-not-found')).textContent).toContain('Instance not found');
    expect(server.calls.filter((c) => c.path.startsWith('/api/v1/instances'))).toHaveLength(0);
  });

  it('shows a phases error with a retry', async () => {
    let fail = true;
    mockApi(
      routes({
        'GET /api/v1/instances/1/phases': () =>
          fail
            ? { status: 400, body: { error: { code: 'invalid', message: 'The period may be at most 31 days.', fields: {} } } }
            : { body: phases() },
      }),
    );
    const user = userEvent.setup();
    renderAppAt('/instances/1');

    expect((await screen.findByRole('alert')).textContent).toContain('The period may be at most 31 days.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('table', { name: 'Totals by phase' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

/** API answers for the Overview and the project page (one organization with spend, phases and a budget). */
import type { MockResponse, RecordedCall } from './mockApi';
import { emptyPage } from './mockApi';

type Route = MockResponse | ((call: RecordedCall) => MockResponse);

const MTD = {
  month: '2026-11',
  month_start: '2026-11-01',
  month_end: '2026-11-30',
  today: '2026-11-11',
  cost: '1100.00',
  cost_before_today: '1000.00',
  run_rate_daily: '95.50',
  run_rate_days: 7,
  days_left: 20,
  known_purchases: '0.00',
  forecast: '2910.00',
  method: 'Cost of the month\u2019s days before today plus the average daily cost of the last 7 complete days times the days left, today included.',
};

export function costReport(overrides: Record<string, unknown> = {}) {
  return {
    basis: 'amortized',
    start: '2026-11-01',
    end: '2026-11-11',
    timezone: 'Asia/Shanghai',
    granularity: 'month',
    group_by: [],
    filters: {},
    currency: 'CNY',
    buckets: ['2026-11-01'],
    total: '1100.00',
    previous_period: { start: '2026-10-21', end: '2026-10-31', cost: '900.00' },
    unallocated: { cost: '0.00', share_pct: 0, by_reason: [] },
    month_to_date: MTD,
    groups: [],
    ...overrides,
  };
}

export const DAYS = ['2026-11-09', '2026-11-10'];

function series(costs: string[]) {
  return costs.map((cost, i) => ({ period_start: DAYS[i]!, cost }));
}

export function byDayReport(groupBy: string) {
  const dimension = groupBy;
  return costReport({
    start: DAYS[0],
    end: DAYS[1],
    granularity: 'day',
    group_by: [groupBy],
    buckets: DAYS,
    total: '330.00',
    previous_period: { start: '2026-11-07', end: '2026-11-08', cost: '300.00' },
    unallocated: { cost: '30.00', share_pct: 9.09, by_reason: [] },
    groups: [
      { keys: [{ dimension, value: 'vision', label: 'Vision' }], cost: '200.00', previous_cost: '0.00', series: series(['120.00', '80.00']) },
      { keys: [{ dimension, value: 'nlp', label: 'NLP' }], cost: '100.00', previous_cost: '0.00', series: series(['40.00', '60.00']) },
      { keys: [{ dimension, value: null, label: 'Unallocated' }], cost: '30.00', previous_cost: '0.00', series: series(['10.00', '20.00']) },
    ],
  });
}

export const UTILIZATION = {
  start: DAYS[0],
  end: DAYS[1],
  scope: 'fleet',
  total: {
    key: null,
    label: 'Fleet',
    instance_count: 3,
    gpu_hours: 96,
    gpu_busy_hours: 48,
    gpu_util_avg_pct: 50,
    gpu_util_p95_pct: 90,
    cost: '300.00',
    currency: 'CNY',
    phases: [
      { phase: 'training', minutes: 3000, gpu_hours: '50.0000', cost: '200.00' },
      { phase: 'idle', minutes: 1800, gpu_hours: '30.0000', cost: '75.50' },
      { phase: 'data_processing', minutes: 600, gpu_hours: '10.0000', cost: '24.50' },
      { phase: 'evaluation', minutes: 0, gpu_hours: '0.0000', cost: '0.00' },
      { phase: 'unknown', minutes: 360, gpu_hours: '6.0000', cost: '0.00' },
    ],
    no_data: [
      { reason: 'no_metrics', minutes: 240, gpu_hours: '4.0000', cost: '0.00' },
      { reason: 'stopped', minutes: 0, gpu_hours: '0.0000', cost: '0.00' },
      { reason: 'not_analysed', minutes: 120, gpu_hours: '2.0000', cost: '0.00' },
    ],
  },
  groups: [],
};

export const HOUR_OF_WEEK = {
  start: DAYS[0],
  end: DAYS[1],
  timezone: 'Asia/Shanghai',
  project: null,
  cells: [
    { weekday: 0, hour: 9, instance_hours: 3, gpu_hours: 3, gpu_busy_hours: 2.4, gpu_util_avg_pct: 80 },
    { weekday: 1, hour: 3, instance_hours: 3, gpu_hours: 3, gpu_busy_hours: 0.3, gpu_util_avg_pct: 10 },
  ],
};

export function budget(overrides: Record<string, unknown> = {}) {
  return {
    id: 1,
    name: 'GPU spend',
    scope: 'organization',
    project: null,
    amount: '3000.00',
    currency: 'CNY',
    actual_thresholds_pct: [80, 100],
    forecast_thresholds_pct: [100],
    status: {
      month: '2026-11',
      spent: '1100.00',
      daily_average: '100.00',
      spent_before_today: '0.00',
      known_purchases: '0.00',
      days_left: '20',
      forecast: '2910.00',
      percent_used: '36.7',
      forecast_pct: '97.0',
      thresholds_crossed: [],
      forecast_method: '',
    },
    created_at: '2026-11-01T00:00:00Z',
    updated_at: '2026-11-01T00:00:00Z',
    ...overrides,
  };
}

export function recommendation(id: number, saving: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    kind: 'idle_shutdown',
    kind_label: 'Stop idle instance',
    status: 'open',
    status_reason: '',
    snoozed_until: null,
    target: `ins-${id}`,
    instance: 10 + id,
    cloud_instance_id: `ins-${id}`,
    instance_name: `gpu-${id}`,
    members: [],
    project: 1,
    project_name: 'Vision',
    title: `Stop gpu-${id} when idle`,
    explanation: '',
    saving: { monthly_amount: saving, currency: 'CNY', formula: '', price_source: 'bills' },
    paid_while_waiting: null,
    upsize: null,
    confidence: { level: 'high', evidence_days: 14, coverage_pct: 95 },
    risk: { level: 1, reason: 'Stopping loses nothing on disk.' },
    first_seen_at: '2026-11-01T00:00:00Z',
    last_seen_at: '2026-11-10T00:00:00Z',
    accepted_at: null,
    resolved_at: null,
    ...overrides,
  };
}

export function cloudAccount(overrides: Record<string, unknown> = {}) {
  return {
    id: 5,
    name: 'Main account',
    provider: 'tencent',
    secret_id: 'AKID****',
    regions: ['ap-shanghai'],
    site: 'china',
    endpoint: '',
    endpoint_scheme: 'https',
    currency: 'CNY',
    status: 'ok',
    last_error: '',
    last_error_at: null,
    sync: [
      { kind: 'metrics', last_success_at: '2026-11-11T01:55:00Z', next_run_at: null, last_error: '', progress: null },
      { kind: 'bills', last_success_at: '2026-11-11T00:10:00Z', next_run_at: null, last_error: '', progress: null },
    ],
    created_at: '2026-10-01T00:00:00Z',
    ...overrides,
  };
}

export const PROJECTS = [
  { id: 1, name: 'Vision', slug: 'vision', tag_values: ['vision'] },
  { id: 2, name: 'NLP', slug: 'nlp', tag_values: ['nlp'] },
];

function page(results: unknown[]) {
  return { ...emptyPage, count: results.length, results };
}

/** Every read of the Overview; `overrides` replaces routes (e.g. an error or an empty answer). */
export function overviewRoutes(overrides: Record<string, Route> = {}): Record<string, Route> {
  return {
    'GET /api/v1/cloud-accounts': { body: page([cloudAccount()]) },
    'GET /api/v1/costs': (call) => {
      const q = call.query;
      if (q.get('granularity') === 'day') return { body: { ...byDayReport(q.get('group_by') ?? 'project'), basis: q.get('basis') ?? 'amortized' } };
      if (q.get('start')) return { body: costReport({ start: q.get('start'), end: q.get('end'), total: '800.00' }) };
      return { body: costReport() };
    },
    'GET /api/v1/utilization': { body: UTILIZATION },
    'GET /api/v1/utilization/hour-of-week': { body: HOUR_OF_WEEK },
    'GET /api/v1/budgets': { body: page([budget(), budget({ id: 2, scope: 'project', project: 1, amount: '1000.00' })]) },
    'GET /api/v1/recommendations': { body: page([recommendation(1, '900.00'), recommendation(2, '450.50')]) },
    'GET /api/v1/project-tag-keys': { body: page([{ id: 1, key: 'team', position: 0 }]) },
    'GET /api/v1/projects': { body: page(PROJECTS) },
    ...overrides,
  };
}

import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { ACME, CSRF, makeMe, mockApi, type MockResponse, type RecordedCall } from './mockApi';
import type { Recommendation, RecommendationDetail, RecommendationStatus, RecommendationTotal, InstancePhases, InstanceProfile } from '../api/types';
import type { ChartOption } from '../components/Chart';
import { sumDecimals } from '../money';
import { startOfDayIn } from '../pages/recommendations/labels';
import { dailyPhaseMinutes } from '../pages/recommendations/evidenceCharts';
import { i18n } from '../i18n';

// The ECharts canvas cannot be drawn in happy-dom: record what each chart is given instead.
const charts = vi.hoisted(() => [] as { ariaLabel?: string; option: ChartOption }[]);
vi.mock('../components/Chart', async () => {
  const { createElement } = await import('react');
  return {
    Chart: ({ option, ariaLabel }: { option: ChartOption; ariaLabel?: string }) => {
      charts.push({ ariaLabel, option });
      return createElement('div', { 'data-testid': 'chart', role: 'img', 'aria-label': ariaLabel });
    },
  };
});

const STOP = 'tccli cvm StopInstances --region ap-guangzhou --InstanceIds \'["ins-night01"]\' --StoppedMode STOP_CHARGING';
const START = 'tccli cvm StartInstances --region ap-guangzhou --InstanceIds \'["ins-night01"]\'';

function rec(overrides: Partial<RecommendationDetail>): RecommendationDetail {
  return {
    id: 0,
    kind: 'stop_idle',
    kind_label: 'Stop idle',
    role: 'plan',
    status: 'open',
    status_reason: '',
    snoozed_until: null,
    target: 'instance',
    instance: 2,
    cloud_instance_id: 'ins-idle0002',
    instance_name: 'idle-a10-02',
    members: [],
    project: 3,
    project_name: 'NLP',
    title: 'Stop idle idle-a10-02',
    explanation: 'idle-a10-02 was idle in 330 of its 336 observed hours over the last 14 days.',
    saving: {
      monthly_amount: '800.00',
      currency: 'CNY',
      formula: '1.11 CNY/h x 720.0 h/month = 800.00 CNY/month (price: bills)',
      price_source: 'bills',
    },
    paid_while_waiting: null,
    upsize: null,
    confidence: { level: 'high', evidence_days: 13.75, coverage_pct: 98.2 },
    risk: { level: 1, reason: 'Nothing ran on it for the whole lookback; restarting takes minutes.' },
    first_seen_at: '2026-10-20T02:00:00Z',
    last_seen_at: '2026-10-27T02:00:00Z',
    accepted_at: null,
    resolved_at: null,
    parameters: [],
    evidence: {
      chart: 'metrics',
      chart_range: { start: '2026-10-25T16:00:00Z', end: '2026-10-27T16:00:00Z' },
      figures: [
        { name: 'observed_hours', value: '336' },
        { name: 'idle_hours', value: '330' },
      ],
    },
    action: { steps: ['Stop it with STOP_CHARGING.'], commands: [STOP], cron: [], window: null, stopped_mode: null, still_billed_when_stopped: [] },
    history: [{ at: '2026-10-20T02:00:00Z', actor: null, from_status: '', to_status: 'open', reason: 'Found.' }],
    realised: null,
    ...overrides,
  };
}

const SCHEDULE = rec({
  id: 11,
  kind: 'schedule',
  kind_label: 'Day/night schedule',
  instance: 1,
  cloud_instance_id: 'ins-night01',
  instance_name: 'night-t4-01',
  title: 'Stop night-t4-01 outside working hours',
  explanation: 'night-t4-01 sits under 15 % GPU utilization (p95) in weeknights 19:00-09:00 (Asia/Shanghai).',
  saving: {
    monthly_amount: '1234.56',
    currency: 'CNY',
    formula: '70.0 h/week still running inside the 70 h/week window x 30/7 weeks/month = 300.0 h/month x 4.1152 CNY/h = 1234.56 CNY/month',
    price_source: 'bills',
  },
  confidence: { level: 'medium', evidence_days: 13.5, coverage_pct: 96.4 },
  risk: { level: 2, reason: 'Work started in the window is cut off by the stop.' },
  evidence: {
    chart: 'profile',
    chart_range: { start: '2026-10-13T00:00:00Z', end: '2026-10-27T00:00:00Z' },
    figures: [
      { name: 'weekly_off_hours', value: '70' },
      { name: 'p95_max_pct', value: '15' },
      { name: 'tz', value: 'Asia/Shanghai' },
    ],
  },
  action: {
    steps: ['Tell the instance\'s users the window.'],
    commands: [STOP, START],
    cron: ['CRON_TZ=Asia/Shanghai', `0 19 * * 1-5 ${STOP}`, `0 9 * * 1-5 ${START}`],
    window: {
      tz: 'Asia/Shanghai',
      weekly_hours: 70,
      runs: [0, 1, 2, 3, 4].map((d) => ({
        start_weekday: d,
        start_hour: 19,
        end_weekday: (d + 1) % 7,
        end_hour: 9,
        hours: 14,
        label: `weekday ${d} 19:00-09:00`,
      })),
    },
    stopped_mode: 'STOP_CHARGING',
    still_billed_when_stopped: ['system and data disks', 'bandwidth'],
  },
  history: [
    { at: '2026-10-20T02:00:00Z', actor: null, from_status: '', to_status: 'open', reason: 'Found.' },
    { at: '2026-10-22T03:00:00Z', actor: 'mei@acme.example', from_status: 'open', to_status: 'snoozed', reason: 'After the deadline.' },
    { at: '2026-10-24T00:00:00Z', actor: null, from_status: 'snoozed', to_status: 'open', reason: 'Snooze ended.' },
  ],
});
const IDLE_B = rec({ id: 12 });
const IDLE_C = rec({
  id: 13,
  instance: 4,
  cloud_instance_id: 'ins-idle0004',
  instance_name: 'idle-t4-04',
  title: 'Stop idle idle-t4-04',
  saving: { monthly_amount: '400.00', currency: 'CNY', formula: '0.56 CNY/h x 720 h/month', price_source: 'catalog' },
});

const PIPELINE = rec({
  id: 14,
  kind: 'data_pipeline',
  kind_label: 'Fix the data pipeline',
  title: 'Fix the data pipeline feeding idle-a10-02',
  saving: null,
  paid_while_waiting: {
    monthly_amount: '2857.14',
    gpu_hours_per_month: '571.4',
    currency: 'CNY',
    formula: '5.0000 CNY/h x 720.0 h/month = 3600.00 CNY/month x 16000/20160 data-bound minutes = 2857.14 CNY/month paid while waiting for data',
    price_source: 'bills',
  },
});
const THERMAL = rec({ id: 15, kind: 'thermal', kind_label: 'Thermal alert', title: 'idle-a10-02 runs hot', saving: null });

const UPSIZE_FIGURES = {
  reason: 'next_in_family' as const,
  target_type: 'GN10Xp.10XLARGE160',
  monthly_extra_cost: '2448.00',
  current_samples_per_currency_unit: '63797.5',
  target_samples_per_currency_unit: '57600.0',
  currency: 'CNY',
  formula: 'now 31.6000 CNY/h x 720.0 h/month = 22752.00 CNY/month; the same samples on the target take 360.0 h x 70.0000 CNY/h = 25200.00 CNY/month',
};
const UPSIZE = rec({ id: 16, kind: 'upsize', kind_label: 'Upsize (memory pressure)', title: 'Upsize train-v100', saving: null, upsize: UPSIZE_FIGURES });
const UPSIZE_STUCK = rec({
  id: 17,
  kind: 'upsize',
  kind_label: 'Upsize (memory pressure)',
  title: 'train-t4 is short of GPU memory',
  saving: null,
  upsize: { ...UPSIZE_FIGURES, reason: 'no_larger_type', target_type: null, monthly_extra_cost: null, target_samples_per_currency_unit: null },
});

/** p95 of 80 % on weekdays 09:00-19:00, 5 % otherwise. */
const PROFILE: InstanceProfile = {
  instance_id: 1,
  analysed: true,
  tz: 'Asia/Shanghai',
  start_at: '2026-10-13T00:00:00Z',
  end_at: '2026-10-27T00:00:00Z',
  computed_at: '2026-10-27T02:00:00Z',
  median_pct: null,
  p95_pct: Array.from({ length: 7 }, (_, d) => Array.from({ length: 24 }, (_, h) => (d < 5 && h >= 9 && h < 19 ? 80 : 5))),
  coverage: null,
  off_window: null,
  low_around_the_clock: null,
};

/** Two days in Asia/Shanghai (UTC+8): an idle stretch across local midnight, then training. */
const PHASES: InstancePhases = {
  instance_id: 2,
  start: '2026-10-25T16:00:00Z',
  end: '2026-10-27T16:00:00Z',
  currency: 'CNY',
  cost_source: 'bills',
  cost: '53.28',
  idle_cost: '40.00',
  data_bound_cost: '0.00',
  totals: {},
  no_data: [],
  evidence: { full_evidence_minutes: 0, unseparated_phases: [] },
  segments: [
    // 26 Oct 22:00 - 27 Oct 03:30 local: 2 h on the 26th, 3.5 h on the 27th.
    { phase: 'idle', start_at: '2026-10-26T14:00:00Z', end_at: '2026-10-26T19:30:00Z', minutes: 330, mean_gpu_util_pct: 0.2, missing_metrics: [], unseparated_phases: [] },
    { phase: 'training', start_at: '2026-10-26T19:30:00Z', end_at: '2026-10-26T21:00:00Z', minutes: 90, mean_gpu_util_pct: 80, missing_metrics: [], unseparated_phases: [] },
  ],
};

/**
 * A small recommendations API over a mutable store: lists and totals filter it by status and kind the way
 * the server does, and actions change it, so a test sees a recommendation move from one status to another.
 */
function fakeServer(
  initial: RecommendationDetail[],
  {
    role = 'owner',
    actions,
    failTotals = 0,
    language = 'en',
  }: { role?: string; actions?: (call: RecordedCall) => MockResponse | null; failTotals?: number; language?: 'en' | 'zh-hans' } = {},
) {
  let failuresLeft = failTotals;
  const store = new Map(initial.map((r) => [r.id, structuredClone(r)]));
  const visible = (call: RecordedCall) => {
    const status = call.query.get('status');
    const kind = call.query.get('kind');
    return [...store.values()]
      .filter((r) => (status ? r.status === status : r.status !== 'resolved'))
      .filter((r) => !kind || r.kind === kind)
      // Like the server: largest saving first, rows without one (null) last.
      .sort((a, b) => Number(b.saving?.monthly_amount ?? -Infinity) - Number(a.saving?.monthly_amount ?? -Infinity));
  };
  const list = (r: RecommendationDetail): Recommendation => {
    const { parameters: _p, evidence: _e, action: _a, history: _h, realised: _r, ...row } = r;
    return row;
  };
  const routes: Parameters<typeof mockApi>[0] = {
    'GET /api/v1/me': { body: makeMe({ language, organization: { ...ACME, role }, organizations: [{ ...ACME, role }] }) },
    'GET /api/v1/auth/csrf': CSRF,
    'GET /api/v1/recommendations/totals': (call) => {
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        return { status: 503, body: { error: { code: 'server_error', message: 'The server had a problem.', fields: {} } } };
      }
      const byKind = new Map<string, RecommendationTotal>();
      for (const r of visible(call)) {
        const total = byKind.get(r.kind) ?? {
          key: r.kind,
          label: r.kind_label,
          count: 0,
          monthly_saving: null,
          currency: 'CNY',
          alternatives: 0,
        };
        total.count += 1;
        // As the API: every row counted, the plan rows' money only; a kind none of whose rows
        // has a saving has none (null), not 0.00.
        if (r.role === 'alternative') {
          total.alternatives += 1;
          if (r.saving) total.monthly_saving ??= '0.00';
        } else if (r.saving) total.monthly_saving = sumDecimals([total.monthly_saving ?? '0.00', r.saving.monthly_amount]);
        byKind.set(r.kind, total);
      }
      const by_kind = [...byKind.values()].sort((a, b) => Number(b.monthly_saving ?? -Infinity) - Number(a.monthly_saving ?? -Infinity));
      return { body: { by_kind, by_project: [] } };
    },
    'GET /api/v1/recommendations': (call) => {
      const rows = visible(call).map(list);
      return { body: { count: rows.length, next: null, previous: null, results: rows } };
    },
    'GET /api/v1/instances/1/profile': { body: PROFILE },
    'GET /api/v1/instances/2/phases': { body: PHASES },
  };
  for (const r of initial) {
    routes[`GET /api/v1/recommendations/${r.id}`] = () => ({ body: store.get(r.id) });
    // "Run it for me" (automation.test.tsx covers the panel): not until it is accepted.
    routes[`GET /api/v1/recommendations/${r.id}/automation`] = () => ({
      body: {
        available: store.get(r.id)!.status === 'accepted',
        unavailable_reason: store.get(r.id)!.status === 'accepted' ? null : 'not_accepted',
        unavailable_reason_text: null,
        plan: null,
        next_actions: [],
        weeks: [],
      },
    });
    routes[`POST /api/v1/recommendations/${r.id}/actions`] = (call) => {
      const answer = actions?.(call);
      if (answer) return answer;
      const body = call.body as { action: string; reason?: string; until?: string };
      const to: Record<string, RecommendationStatus> = { accept: 'accepted', dismiss: 'dismissed', snooze: 'snoozed', reopen: 'open' };
      const row = store.get(r.id)! as { -readonly [K in keyof RecommendationDetail]: RecommendationDetail[K] };
      const next = to[body.action]!;
      row.history.push({ at: '2026-10-27T09:00:00Z', actor: 'lin@acme.example', from_status: row.status, to_status: next, reason: body.reason ?? '' });
      row.status = next;
      row.status_reason = body.reason ?? '';
      row.accepted_at = next === 'accepted' ? '2026-10-27T09:00:00Z' : null;
      row.snoozed_until = next === 'snoozed' ? (body.until ?? null) : null;
      row.realised =
        next === 'accepted'
          ? {
              instances: [row.instance_name ?? ''],
              before_start: '2026-09-29T09:00:00Z',
              before_end: '2026-10-27T09:00:00Z',
              weeks_before: 4,
              cost_before: '840.00',
              weekly_cost_before: '210.00',
              after_start: '2026-10-27T09:00:00Z',
              after_end: '2026-10-27T09:00:00Z',
              weeks_after: 0,
              cost_after: null,
              weekly_cost_after: null,
              weekly_saving: null,
              monthly_saving_realised: null,
              monthly_saving_promised: row.saving?.monthly_amount ?? null,
              currency: 'CNY',
            }
          : null;
      return { body: row };
    };
  }
  return { store, ...mockApi(routes) };
}

const money = (amount: string) => `¥${Number(amount).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

describe('the recommendations page', () => {
  it('groups the open recommendations by kind, largest saving first, with each kind\'s monthly total', async () => {
    const server = fakeServer([SCHEDULE, IDLE_B, IDLE_C]);
    renderAppAt('/recommendations');

    const groups = await screen.findAllByTestId(/^rec-group-(?!total)/);
    expect(groups.map((g) => within(g).getByRole('heading', { level: 2 }).textContent)).toEqual([
      'Day/night schedule',
      'Stop idle instances',
    ]);
    // Each kind's total is the sum of its rows' savings (¥800.00 + ¥400.00).
    const idleTotal = sumDecimals([IDLE_B.saving!.monthly_amount, IDLE_C.saving!.monthly_amount]);
    expect(screen.getByTestId('rec-group-total-stop_idle').textContent).toBe(`2 recommendations · ${money(idleTotal)} / month`);
    expect(screen.getByTestId('rec-group-total-schedule').textContent).toBe(`1 recommendation · ${money('1234.56')} / month`);
    const all = sumDecimals([SCHEDULE, IDLE_B, IDLE_C].map((r) => r.saving!.monthly_amount));
    expect(screen.getByTestId('rec-summary').textContent).toBe(`3 open recommendations worth ${money(all)} a month`);

    // Each group lists its own kind, in the open status the page starts with.
    const idle = screen.getByTestId('rec-group-stop_idle');
    await within(idle).findByText('Stop idle idle-t4-04');
    expect(within(idle).getAllByRole('row').slice(1).map((row) => row.getAttribute('data-testid'))).toEqual(['rec-row-12', 'rec-row-13']);
    const lists = server.find('GET', '/api/v1/recommendations');
    expect(lists.map((c) => `${c.query.get('kind')}:${c.query.get('status')}`).sort()).toEqual(['schedule:open', 'stop_idle:open']);

    // A row: title (to its page), target (to the instance), saving with how it was computed, confidence, risk.
    const row = screen.getByTestId('rec-row-11');
    expect(within(row).getByRole('link', { name: SCHEDULE.title }).getAttribute('href')).toBe('/recommendations/11');
    expect(within(row).getByRole('link', { name: 'night-t4-01' }).getAttribute('href')).toBe('/instances/1');
    expect(within(row).getByTestId('saving-amount').textContent).toBe(`${money('1234.56')} / month`);
    expect(within(row).getByTestId('saving-formula').textContent).toContain(SCHEDULE.saving!.formula);
    expect(within(row).getByTestId('saving-formula').textContent).toContain('the price paid on your bills');
    expect(within(row).getByText('13.5 days of evidence, 96.4% of minutes observed')).toBeTruthy();
    expect(within(row).getByText('2/4 · moderate')).toBeTruthy();
    expect(within(row).getByText(SCHEDULE.risk.reason)).toBeTruthy();
  });

  it('marks an alternative and leaves its money out of the totals', async () => {
    const alternative = rec({
      id: 14,
      kind: 'schedule',
      kind_label: 'Day/night schedule',
      role: 'alternative',
      title: 'Schedule idle-a10-02',
      saving: { ...SCHEDULE.saving!, monthly_amount: '300.00' },
    });
    fakeServer([SCHEDULE, alternative]);
    renderAppAt('/recommendations');

    const total = await screen.findByTestId('rec-group-total-schedule');
    // Both rows counted, only the plan row's money added up.
    expect(total.textContent).toContain(`2 recommendations · ${money('1234.56')} / month`);
    expect(screen.getByTestId('rec-group-alternatives-schedule').textContent).toBe(
      "1 alternative, not added up (its instance's plan counts that money)",
    );
    const row = await screen.findByTestId('rec-row-14');
    expect(within(row).getByTestId('rec-alternative').textContent).toBe('Alternative');
    expect(within(screen.getByTestId('rec-row-11')).queryByTestId('rec-alternative')).toBeNull();
  });

  it('shows what a pipeline pays while waiting instead of a saving, and adds neither it nor an alert to the money', async () => {
    fakeServer([IDLE_B, PIPELINE, THERMAL]);
    renderAppAt('/recommendations');

    const pipeline = await screen.findByTestId('rec-row-14');
    expect(within(pipeline).getByTestId('paid-while-waiting').textContent).toBe(`Paid while waiting: ${money('2857.14')} / month`);
    expect(within(pipeline).getByTestId('gpu-hours-waiting').textContent).toBe('571.4 GPU-hours a month waiting for data');
    expect(within(pipeline).getByTestId('saving-formula').textContent).toContain(PIPELINE.paid_while_waiting!.formula);
    expect(within(pipeline).queryByTestId('saving-amount')).toBeNull();
    const thermal = await screen.findByTestId('rec-row-15');
    expect(within(thermal).getByTestId('no-saving').textContent).toBe('No saving');
    for (const row of [pipeline, thermal]) expect(row.textContent).not.toMatch(/¥0\.00|NaN/);
    expect(screen.getByTestId('rec-group-total-data_pipeline').textContent).toBe('1 recommendation · no saving');
    expect(screen.getByTestId('rec-group-total-thermal').textContent).toBe('1 recommendation · no saving');
    // The headline counts all three and is worth the idle one's saving alone.
    expect(screen.getByTestId('rec-summary').textContent).toBe(`3 open recommendations worth ${money('800.00')} a month`);
  });

  it('says paid while waiting, no saving and no larger type in Chinese', async () => {
    fakeServer([PIPELINE, THERMAL, UPSIZE_STUCK], { language: 'zh-hans' });
    renderAppAt('/recommendations');

    const pipeline = await screen.findByTestId('rec-row-14');
    expect(within(pipeline).getByTestId('paid-while-waiting').textContent).toBe('等待数据期间的花费：每月 ¥2,857.14');
    expect(within(pipeline).getByTestId('gpu-hours-waiting').textContent).toBe('每月 571.4 GPU 小时在等待数据');
    expect(within(screen.getByTestId('rec-row-15')).getByTestId('no-saving').textContent).toBe('无节省');
    expect(screen.getByTestId('rec-group-total-thermal').textContent).toBe('1 条建议 · 无节省');
    expect(within(await screen.findByTestId('rec-row-17')).getByTestId('upsize-cost').textContent).toBe('该系列没有更大的机型');
    await i18n.changeLanguage('en');
  });

  it('shows an upsize\'s extra cost and work per yuan, or that no larger type exists, never as a saving', async () => {
    fakeServer([IDLE_B, UPSIZE, UPSIZE_STUCK]);
    renderAppAt('/recommendations');

    const dearer = await screen.findByTestId('rec-row-16');
    expect(within(dearer).getByTestId('upsize-cost').textContent).toBe(`Costs ${money('2448.00')} / month more for the same work`);
    expect(within(dearer).getByTestId('work-per-money').textContent).toBe('Work per CNY: 63,798 samples now, 57,600 on GN10Xp.10XLARGE160');
    expect(within(dearer).queryByTestId('saving-amount')).toBeNull();
    const stuck = await screen.findByTestId('rec-row-17');
    expect(within(stuck).getByTestId('upsize-cost').textContent).toBe('No larger type in this family');
    expect(within(stuck).getByTestId('work-per-money').textContent).toBe('Work per CNY: 63,798 samples now');
    for (const row of [dearer, stuck]) expect(row.textContent).not.toMatch(/¥0\.00|NaN|-¥/);
    expect(screen.getByTestId('rec-group-total-upsize').textContent).toBe('2 recommendations · no saving');
    expect(screen.getByTestId('rec-summary').textContent).toBe(`3 open recommendations worth ${money('800.00')} a month`);
  });

  it('keeps the status filter in the URL', async () => {
    const realised = {
      instances: ['idle-t4-04'],
      before_start: '2026-09-22T00:00:00Z',
      before_end: '2026-10-20T00:00:00Z',
      weeks_before: 4,
      cost_before: '480.00',
      after_start: '2026-10-20T00:00:00Z',
      after_end: '2026-10-27T00:00:00Z',
      weeks_after: 1,
      cost_after: '30.00',
      weekly_cost_before: '120.00',
      weekly_cost_after: '30.00',
      weekly_saving: '90.00',
      monthly_saving_realised: '385.71',
      monthly_saving_promised: '400.00',
      currency: 'CNY',
    };
    const server = fakeServer([SCHEDULE, IDLE_B, { ...IDLE_C, status: 'accepted', accepted_at: '2026-10-20T00:00:00Z', realised }]);
    const user = userEvent.setup();
    renderAppAt('/recommendations');
    await screen.findByTestId('rec-group-schedule');

    await user.click(screen.getByRole('button', { name: 'Accepted' }));
    expect(new URLSearchParams(window.location.search).get('status')).toBe('accepted');
    await screen.findByTestId('rec-row-13');
    expect(screen.queryByTestId('rec-row-11')).toBeNull();
    expect(server.find('GET', '/api/v1/recommendations/totals').some((c) => c.query.get('status') === 'accepted')).toBe(true);
    expect(screen.getByRole('button', { name: 'Accepted' }).getAttribute('aria-pressed')).toBe('true');
    // An accepted row sets what it saved beside what it promised.
    expect((await screen.findByTestId('realised-line-13')).textContent).toBe(
      `Realised ${money(realised.monthly_saving_realised)} / month of ${money(realised.monthly_saving_promised)} promised`,
    );
  });

  it('an accepted row whose finding is gone stays listed as accepted, with when it went and its realised saving', async () => {
    const realised = {
      instances: ['idle-t4-04'],
      before_start: '2026-09-22T00:00:00Z',
      before_end: '2026-10-20T00:00:00Z',
      weeks_before: 4,
      cost_before: '480.00',
      after_start: '2026-10-20T00:00:00Z',
      after_end: '2026-10-27T00:00:00Z',
      weeks_after: 1,
      cost_after: '0.00',
      weekly_cost_before: '120.00',
      weekly_cost_after: '0.00',
      weekly_saving: '120.00',
      monthly_saving_realised: '514.29',
      monthly_saving_promised: '400.00',
      currency: 'CNY',
    };
    const gone = { ...IDLE_C, status: 'accepted' as const, accepted_at: '2026-10-20T00:00:00Z', resolved_at: '2026-10-22T00:00:00Z', realised };
    fakeServer([gone]);
    renderAppAt('/recommendations?status=accepted');
    const row = await screen.findByTestId('rec-row-13');
    expect(within(row).getByText(/^Accepted on .*; finding no longer seen since .*2026/)).toBeTruthy();
    expect((await screen.findByTestId('realised-line-13')).textContent).toContain(money(realised.monthly_saving_realised));
  });

  it('opens on the status a link names', async () => {
    fakeServer([{ ...SCHEDULE, status: 'dismissed', status_reason: 'Runs a nightly batch.' }]);
    renderAppAt('/recommendations?status=dismissed');
    const row = await screen.findByTestId('rec-row-11');
    expect(within(row).getByText('Dismissed: Runs a nightly batch.')).toBeTruthy();
  });

  it('accepting moves a recommendation to accepted: the body sent, the list and totals fetched again', async () => {
    const server = fakeServer([SCHEDULE, IDLE_B]);
    const user = userEvent.setup();
    renderAppAt('/recommendations');
    const row = await screen.findByTestId('rec-row-11');
    const totalsBefore = server.find('GET', '/api/v1/recommendations/totals').length;

    await user.click(within(row).getByRole('button', { name: `Accept: ${SCHEDULE.title}` }));

    await waitFor(() => expect(screen.queryByTestId('rec-row-11')).toBeNull());
    const [post] = server.find('POST', '/api/v1/recommendations/11/actions');
    expect(post!.body).toEqual({ action: 'accept' });
    expect(server.find('GET', '/api/v1/recommendations/totals').length).toBeGreaterThan(totalsBefore);
    expect(screen.queryByTestId('rec-group-schedule')).toBeNull(); // No open schedule is left.
    expect(screen.getByTestId('rec-notice').textContent).toContain('is now accepted');

    await user.click(screen.getByRole('button', { name: 'Show Accepted' }));
    const moved = await screen.findByTestId('rec-row-11');
    expect(within(moved).getByText(/^Accepted on/)).toBeTruthy();
    // Just accepted: no bills after it yet.
    expect((await within(moved).findByTestId('realised-line-11')).textContent).toBe('Realised saving: not measured yet');
    expect(server.store.get(11)!.status).toBe('accepted');
  });

  it('asks why before dismissing, and sends the reason', async () => {
    const server = fakeServer([SCHEDULE]);
    const user = userEvent.setup();
    renderAppAt('/recommendations');
    const row = await screen.findByTestId('rec-row-11');

    await user.click(within(row).getByRole('button', { name: `Dismiss: ${SCHEDULE.title}` }));
    await user.click(within(row).getByRole('button', { name: 'Dismiss' }));
    const reason = within(row).getByLabelText('Why dismiss it?');
    expect(reason.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(reason.getAttribute('aria-describedby')!.split(' ').pop()!)!.textContent).toBe(
      'Say why it is dismissed.',
    );
    expect(server.find('POST', '/api/v1/recommendations/11/actions')).toHaveLength(0);

    await user.type(reason, 'The night run is the nightly evaluation.');
    await user.click(within(row).getByRole('button', { name: 'Dismiss' }));
    await waitFor(() => expect(server.find('POST', '/api/v1/recommendations/11/actions')).toHaveLength(1));
    expect(server.find('POST', '/api/v1/recommendations/11/actions')[0]!.body).toEqual({
      action: 'dismiss',
      reason: 'The night run is the nightly evaluation.',
    });
    await waitFor(() => expect(screen.queryByTestId('rec-row-11')).toBeNull());
  });

  it('shows the API\'s snooze error next to the date, and sends the organization\'s midnight', async () => {
    const server = fakeServer([SCHEDULE], {
      actions: () => ({
        status: 400,
        body: { error: { code: 'invalid', message: 'Invalid input.', fields: { until: ['Must be in the future.'] } } },
      }),
    });
    const user = userEvent.setup();
    renderAppAt('/recommendations');
    const row = await screen.findByTestId('rec-row-11');

    await user.click(within(row).getByRole('button', { name: `Snooze: ${SCHEDULE.title}` }));
    const until = within(row).getByLabelText('Snooze until') as HTMLInputElement;
    await user.type(until, '2026-01-05');
    await user.click(within(row).getByRole('button', { name: 'Snooze' }));

    await waitFor(() => expect(until.getAttribute('aria-invalid')).toBe('true'));
    const errorId = until.getAttribute('aria-describedby')!.split(' ').pop()!;
    const message = document.getElementById(errorId)!;
    expect(message.textContent).toBe('Must be in the future.');
    // The message sits in the date's own field, not only in a banner.
    expect(message.closest('.field')!.contains(until)).toBe(true);
    // Midnight of 5 January in Asia/Shanghai (UTC+8) is 16:00 UTC the day before.
    expect(server.find('POST', '/api/v1/recommendations/11/actions')[0]!.body).toEqual({
      action: 'snooze',
      until: '2026-01-04T16:00:00Z',
    });
  });

  for (const role of ['viewer', 'finance']) {
    it(`shows a ${role} no action buttons, on the list or the detail`, async () => {
      fakeServer([SCHEDULE, IDLE_B], { role });
      renderAppAt('/recommendations');
      const row = await screen.findByTestId('rec-row-11');
      expect(within(row).queryAllByRole('button')).toEqual([]);
      expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull();
      expect(screen.queryByRole('button', { name: /^(Accept|Dismiss|Snooze|Reopen):/ })).toBeNull();

      renderAppAt('/recommendations/11');
      await screen.findAllByTestId('detail-explanation');
      expect(screen.queryByRole('button', { name: /^(Accept|Dismiss|Snooze|Reopen):/ })).toBeNull();
      // Copying a command is reading, not acting: it stays.
      expect(screen.getAllByRole('button', { name: /^Copy/ }).length).toBeGreaterThan(0);
    });
  }

  it('says what to do next when nothing is open', async () => {
    fakeServer([]);
    renderAppAt('/recommendations');
    const empty = await screen.findByTestId('rec-empty');
    expect(within(empty).getByRole('heading', { name: 'No open recommendations' })).toBeTruthy();
    expect(within(empty).getByRole('link', { name: 'Settings' }).getAttribute('href')).toBe('/settings/cloud-accounts');
  });

  it('shows an error with a retry that works', async () => {
    const server = fakeServer([IDLE_B], { failTotals: 1 });
    const user = userEvent.setup();
    renderAppAt('/recommendations');
    expect((await screen.findByRole('alert')).textContent).toContain('The server had a problem.');
    expect(screen.queryByTestId('rec-row-12')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('rec-row-12')).toBeTruthy();
    expect(server.find('GET', '/api/v1/recommendations/totals')).toHaveLength(2);
  });

  it('shows a skeleton while the totals load', async () => {
    fakeServer([IDLE_B]);
    renderAppAt('/recommendations');
    expect(await screen.findByTestId('rec-loading')).toBeTruthy();
    await screen.findByTestId('rec-row-12');
    expect(screen.queryByTestId('rec-loading')).toBeNull();
  });
});

describe('a recommendation\'s page', () => {
  it('shows the explanation, the evidence with its hour-of-week chart, the commands and the history', async () => {
    charts.length = 0;
    fakeServer([SCHEDULE]);
    renderAppAt('/recommendations/11');

    expect((await screen.findByTestId('detail-explanation')).textContent).toBe(SCHEDULE.explanation);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toContain(SCHEDULE.title);
    const figures = screen.getByTestId('evidence-figures');
    expect(within(figures).getByRole('rowheader', { name: 'Off hours per week' }).nextElementSibling!.textContent).toBe('70');
    expect(within(figures).getByRole('rowheader', { name: 'Low threshold (p95 GPU utilization, %)' })).toBeTruthy();

    // The chart: one bar per hour of the week, those in the window apart, the threshold as a line.
    const chart = await waitFor(() => {
      const found = charts.find((c) => c.ariaLabel?.startsWith('p95 GPU utilization per hour of the week'));
      expect(found).toBeTruthy();
      return found!;
    });
    const series = chart.option.series as { name: string; data: (number | null)[] }[];
    const [inside, outside, threshold] = series;
    expect(inside!.data).toHaveLength(168);
    // Monday 19:00-24:00 and Tuesday 00:00-09:00 are in the window (5 % each); Monday 10:00 is not (80 %).
    expect(inside!.data[19]).toBe(5);
    expect(inside!.data[24 + 8]).toBe(5);
    expect(outside!.data[10]).toBe(80);
    expect(inside!.data[10]).toBeNull();
    // 5 runs of 14 hours = the 70 weekly hours the action states.
    expect(inside!.data.filter((v) => v !== null)).toHaveLength(SCHEDULE.action.window!.weekly_hours!);
    expect(new Set(threshold!.data)).toEqual(new Set([15]));

    expect(screen.getByTestId('action-window').textContent).toContain('70 h a week, Asia/Shanghai');
    expect(screen.getByTestId('command-0').textContent).toContain(STOP);
    expect(screen.getByTestId('command-1').textContent).toContain(START);
    expect(screen.getByTestId('cron').querySelector('code')!.textContent).toBe(SCHEDULE.action.cron.join('\n'));

    const history = within(screen.getByTestId('history')).getAllByRole('row').slice(1);
    expect(history.map((r) => r.textContent)).toEqual([
      expect.stringContaining('GPU LedgerSnoozed → OpenSnooze ended.'),
      expect.stringContaining('mei@acme.example'),
      expect.stringContaining('Found.'),
    ]);
    expect(history[1]!.textContent).toContain('Open → SnoozedAfter the deadline.');
  });

  it('copies the exact command', async () => {
    fakeServer([SCHEDULE]);
    const user = userEvent.setup();
    renderAppAt('/recommendations/11');
    await screen.findByTestId('detail-explanation');

    await user.click(screen.getByRole('button', { name: 'Copy command 2' }));
    expect(await navigator.clipboard.readText()).toBe(START);
    expect(within(screen.getByTestId('command-1')).getByRole('button').textContent).toBe('Copied');

    await user.click(screen.getByRole('button', { name: 'Copy Cron schedule' }));
    expect(await navigator.clipboard.readText()).toBe(SCHEDULE.action.cron.join('\n'));
  });

  it('draws the hours per phase per day over the evidence range, each bar the sum of the segments', async () => {
    charts.length = 0;
    const server = fakeServer([IDLE_B]);
    renderAppAt('/recommendations/12');
    const chart = await waitFor(() => {
      const found = charts.find((c) => c.ariaLabel?.startsWith('Hours per phase per day'));
      expect(found).toBeTruthy();
      return found!;
    });
    const [phases] = server.find('GET', '/api/v1/instances/2/phases');
    expect(phases!.query.get('start')).toBe('2026-10-25T16:00:00.000Z');
    expect(phases!.query.get('end')).toBe('2026-10-27T16:00:00.000Z');
    const xAxis = chart.option.xAxis as { data: string[] };
    expect(xAxis.data).toEqual(['10-26', '10-27']);
    const byName = Object.fromEntries((chart.option.series as { name: string; data: number[] }[]).map((s) => [s.name, s.data]));
    // The idle segment from 22:00 to 03:30 local: 2 h on the 26th, 3.5 h on the 27th; training 1.5 h on the 27th.
    expect(byName.Idle).toEqual([120 / 60, (330 - 120) / 60]);
    expect(byName.Training).toEqual([0, 90 / 60]);
  });

  it('shows the figures but no range and no chart when the evidence recorded no range', async () => {
    const server = fakeServer([{ ...IDLE_B, evidence: { ...IDLE_B.evidence, chart_range: null } }]);
    renderAppAt('/recommendations/12');
    expect(await screen.findByTestId('evidence-no-chart')).toBeTruthy();
    expect(within(screen.getByTestId('evidence-figures')).getByText('330')).toBeTruthy();
    expect(screen.queryByText(/^Measured /)).toBeNull();
    expect(server.find('GET', '/api/v1/instances/2/phases')).toEqual([]);
  });

  it('sets what an accepted recommendation saved next to what it promised, recomputable from the figures shown', async () => {
    fakeServer([
      {
        ...IDLE_B,
        status: 'accepted',
        accepted_at: '2026-10-13T00:00:00Z',
        realised: {
          instances: ['idle-a10-02'],
          before_start: '2026-09-15T00:00:00Z',
          before_end: '2026-10-13T00:00:00Z',
          weeks_before: 4,
          cost_before: '1000.00',
          after_start: '2026-10-13T00:00:00Z',
          after_end: '2026-10-27T00:00:00Z',
          weeks_after: 2,
          cost_after: '140.00',
          weekly_cost_before: '250.00',
          weekly_cost_after: '70.00',
          weekly_saving: '180.00',
          monthly_saving_realised: '771.43',
          monthly_saving_promised: '800.00',
          currency: 'CNY',
        },
      },
    ]);
    renderAppAt('/recommendations/12');
    const realised = await screen.findByTestId('realised');
    expect(within(realised).getByTestId('realised-promised').textContent).toContain(`${money('800.00')} / month`);
    expect(within(realised).getByTestId('realised-amount').textContent).toContain(`${money('771.43')} / month`);
    const formula = within(realised).getByTestId('realised-formula').textContent!;
    // The amounts billed over the weeks shown give the weekly costs, and those the saving.
    const [costBefore, before, costAfter, after, , , weekly, monthly] = [...formula.matchAll(/¥([\d,]+\.\d\d)/g)].map((m) => Number(m[1]!.replace(/,/g, '')));
    const [weeksBefore, weeksAfter] = [...formula.matchAll(/\/ ([\d.]+) weeks/g)].map((m) => Number(m[1]));
    expect(Math.round((costBefore! / weeksBefore!) * 100) / 100).toBe(before);
    expect(Math.round((costAfter! / weeksAfter!) * 100) / 100).toBe(after);
    expect(formula).toContain('(the latest bill synced)');
    expect(Math.round((before! - after!) * 100) / 100).toBe(weekly);
    expect(Math.round(((weekly! * 30) / 7) * 100) / 100).toBe(monthly);
    expect(formula).toContain('× 30/7');
    expect(within(realised).getByTestId('realised-instances').textContent).toBe('Bills of idle-a10-02.');
    // Accepted: reopen or dismiss, not accept again.
    expect(screen.getByRole('button', { name: `Reopen: ${IDLE_B.title}` })).toBeTruthy();
    expect(screen.queryByRole('button', { name: `Accept: ${IDLE_B.title}` })).toBeNull();
  });

  it('says a recommendation of another organization is not found', async () => {
    fakeServer([]);
    renderAppAt('/recommendations/999');
    expect(await screen.findByTestId('rec-not-found')).toBeTruthy();
  });
});

describe('recommendation helpers', () => {
  it('turns a snooze day into the organization\'s midnight as a UTC instant', () => {
    expect(startOfDayIn('2026-11-03', 'Asia/Shanghai')).toBe('2026-11-02T16:00:00Z');
    expect(startOfDayIn('2026-11-03', 'UTC')).toBe('2026-11-03T00:00:00Z');
    // Across a DST change: New York is UTC-4 on 1 November 2026 at midnight, UTC-5 on the 2nd.
    expect(startOfDayIn('2026-11-01', 'America/New_York')).toBe('2026-11-01T04:00:00Z');
    expect(startOfDayIn('2026-11-02', 'America/New_York')).toBe('2026-11-02T05:00:00Z');
    expect(startOfDayIn('2026-02-30', 'UTC')).toBeNull();
    expect(startOfDayIn('', 'UTC')).toBeNull();
  });

  it('splits a segment at local midnight and keeps every minute', () => {
    const daily = dailyPhaseMinutes(PHASES.segments, PHASES.start, PHASES.end, 'Asia/Shanghai');
    const total = Object.values(daily.minutes).flat().reduce((a, b) => a + b, 0);
    expect(total).toBe(PHASES.segments.reduce((acc, s) => acc + s.minutes, 0));
    // The same segments in UTC fall on one day (26 Oct 14:00-21:00 UTC).
    const utc = dailyPhaseMinutes(PHASES.segments, PHASES.start, PHASES.end, 'UTC');
    expect(utc.days).toEqual(['2026-10-25', '2026-10-26', '2026-10-27']);
    expect(utc.minutes.idle).toEqual([0, 330, 0]);
  });
});

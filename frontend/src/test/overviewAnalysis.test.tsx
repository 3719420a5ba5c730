import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { CSRF, emptyPage, makeMe, mockApi } from './mockApi';
import { cloudAccount, overviewRoutes, recommendation } from './overviewFixtures';
import type { ChartOption } from '../components/Chart';

// The ECharts canvas cannot be drawn in happy-dom: record what each chart is given instead.
const charts = vi.hoisted(() => [] as { name?: string; option: ChartOption }[]);
vi.mock('../components/Chart', async () => {
  const { createElement } = await import('react');
  return {
    Chart: ({ option, ariaLabel, name }: { option: ChartOption; ariaLabel?: string; name?: string }) => {
      charts.push({ name, option });
      return createElement('div', { 'data-testid': 'chart', 'data-chart': name, role: 'img', 'aria-label': ariaLabel });
    },
  };
});

function lastChart(name: string): ChartOption {
  const found = charts.filter((c) => c.name === name);
  expect(found.length).toBeGreaterThan(0);
  return found[found.length - 1]!.option;
}

const SERVER_ERROR = { status: 500, body: { error: { code: 'server_error', message: 'Something broke on our side.', fields: {} } } };
// 11 November 2026, 12:00 in Shanghai.
const NOW = new Date('2026-11-11T04:00:00Z');

beforeEach(() => {
  charts.length = 0;
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterEach(() => vi.useRealTimers());

describe('the Overview', () => {
  it('shows this month with the figures to recompute each card', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    renderAppAt('/');

    expect((await screen.findByTestId('mtd-spend')).textContent).toBe('¥1,100.00');
    expect(screen.getByTestId('user-email').textContent).toBe('lin@acme.example');
    expect(screen.getByTestId('org-name').textContent).toBe('Acme AI');
    expect(screen.getByTestId('mtd-spend-evidence').textContent).toBe('11 days: 1 Nov 2026 – 11 Nov 2026 (today so far)');
    expect(screen.getByTestId('mtd-forecast').textContent).toBe('¥2,910.00');
    // 1,000.00 + 95.50 x 20 + 0.00 = 2,910.00: the API's figures, shown so that anyone can redo the sum.
    expect(screen.getByTestId('mtd-forecast-evidence').textContent).toBe(
      '¥1,000.00 before today + ¥95.50 a day (average of the last 7 complete days, purchases aside) × 20 days left + ¥0.00 of purchases already billed for them (bill month, amortized)',
    );
    const budget = await screen.findByTestId('budget-status');
    expect(budget.textContent).toContain('Organization budget');
    expect(budget.textContent).toContain('36.7% used');
    expect(screen.getByTestId('budget-evidence').textContent).toBe('¥1,100.00 of ¥3,000.00; forecast ¥2,910.00 (97.0%)');

    // The same complete days of October: 1–10 (¥800.00) against 1–10 November (¥1,000.00): +25 %.
    await waitFor(() => expect(screen.getByTestId('change-vs-last-month').textContent).toBe('▲ 25.0%'));
    const previous = server.find('GET', '/api/v1/costs').find((c) => c.query.get('start') === '2026-10-01')!;
    expect(previous.query.get('end')).toBe('2026-10-10');
    expect(screen.getByTestId('change-evidence').textContent).toBe(
      '¥1,000.00 on 1 Nov 2026 – 10 Nov 2026 vs ¥800.00 on 1 Oct 2026 – 10 Oct 2026 (complete days only)',
    );
    // The month-to-date report is asked without a period (the API's default: the 1st to today).
    const mtd = server.find('GET', '/api/v1/costs').find((c) => !c.query.get('start'))!;
    expect(mtd.query.get('granularity')).toBe('month');
    expect(mtd.query.get('project')).toBeNull();
    expect(screen.queryByTestId('overview-empty')).toBeNull();
  });

  it('opens on the same days as the Projects and Instances pages', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...overviewRoutes(),
      'GET /api/v1/usage/projects': {
        body: { start: '2026-10-13', end: '2026-11-11', timezone: 'Asia/Shanghai', currency: 'CNY', days: [], results: [] },
      },
      'GET /api/v1/budgets': { body: emptyPage },
    });
    const overview = renderAppAt('/');
    await screen.findByRole('img', { name: 'Daily spend stacked by Project' });
    const spend = server.find('GET', '/api/v1/costs').find((c) => c.query.get('granularity') === 'day')!.query;
    overview.unmount();

    const projects = renderAppAt('/projects');
    await waitFor(() => expect(server.find('GET', '/api/v1/usage/projects')).toHaveLength(1));
    const usage = server.find('GET', '/api/v1/usage/projects')[0]!.query;
    expect([usage.get('start'), usage.get('end')]).toEqual([spend.get('start'), spend.get('end')]);
    // Both say it the same way: the default preset is pressed, and the URL stays clean.
    expect(screen.getByRole('button', { name: 'Last 30 days' }).getAttribute('aria-pressed')).toBe('true');
    projects.unmount();
  });

  it('stacks the daily spend by project over the page range, unallocated apart, and switches to a tag', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    const user = userEvent.setup();
    renderAppAt('/');

    await screen.findByRole('img', { name: 'Daily spend stacked by Project' });
    const call = server.find('GET', '/api/v1/costs').find((c) => c.query.get('granularity') === 'day')!;
    // The default 30 days, both ends included (as /costs reads them).
    expect([call.query.get('start'), call.query.get('end'), call.query.get('group_by')]).toEqual(['2026-10-13', '2026-11-11', 'project']);
    const option = lastChart('spend-over-time');
    const series = option.series as { name: string; stack: string; data: number[] }[];
    expect(series.map((s) => s.name)).toEqual(['Vision', 'NLP', 'Unallocated']);
    expect(series.map((s) => s.data)).toEqual([
      [120, 80],
      [40, 60],
      [10, 20],
    ]);
    expect(new Set(series.map((s) => s.stack)).size).toBe(1);
    expect(screen.getByTestId('spend-section').textContent).toContain(
      '¥330.00 in 2 days (the 2 days before: ¥300.00); unallocated ¥30.00 (9.1%)',
    );

    const select = screen.getByTestId('spend-group-by') as HTMLSelectElement;
    expect(Array.from(select.options).map((o) => o.value)).toEqual(['project', 'instance_type', 'charge_type', 'tag:team']);
    await user.selectOptions(select, 'tag:team');
    await screen.findByRole('img', { name: 'Daily spend stacked by Tag: team' });
    const byTag = server.find('GET', '/api/v1/costs').filter((c) => c.query.get('granularity') === 'day');
    expect(byTag[byTag.length - 1]!.query.get('group_by')).toBe('tag:team');
    expect(window.location.search).toContain('spend_by=tag%3Ateam');
  });

  it('says which cost basis it shows, amortized by default, and switches to billed', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    const user = userEvent.setup();
    renderAppAt('/');
    await screen.findByRole('img', { name: 'Daily spend stacked by Project' });

    const toggle = screen.getByTestId('cost-basis');
    expect(within(toggle).getByRole('button', { name: 'Amortized' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('cost-basis-note').textContent).toBe('Amortized cost: subscriptions spread over the days they cover.');
    expect(screen.getByTestId('spend-section').textContent).toContain('Spend over time · Amortized');
    const daily = () => server.find('GET', '/api/v1/costs').filter((c) => c.query.get('granularity') === 'day');
    expect(daily()[0]!.query.get('basis')).toBe('amortized');

    await user.click(within(toggle).getByRole('button', { name: 'Billed' }));
    await waitFor(() => expect(daily()[daily().length - 1]!.query.get('basis')).toBe('billed'));
    expect(within(toggle).getByRole('button', { name: 'Billed' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('cost-basis-note').textContent).toBe('Billed cost: as invoiced, each charge on the day it was billed.');
    expect(window.location.search).toContain('basis=billed');
    await waitFor(() => expect(screen.getByTestId('spend-section').textContent).toContain('Spend over time · Billed'));
  });

  it('asks every range-bound section for the days the picker chose', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    const user = userEvent.setup();
    renderAppAt('/?range=last-month');
    await screen.findByRole('img', { name: 'Daily spend stacked by Project' });

    for (const path of ['/api/v1/utilization', '/api/v1/utilization/hour-of-week']) {
      const first = server.find('GET', path)[0]!;
      expect([first.query.get('start'), first.query.get('end')]).toEqual(['2026-10-01', '2026-10-31']);
    }
    await user.click(screen.getByRole('button', { name: 'Last 7 days' }));
    await waitFor(() => expect(server.find('GET', '/api/v1/utilization').length).toBe(2));
    expect(server.find('GET', '/api/v1/utilization')[1]!.query.get('start')).toBe('2026-11-05');
    expect(window.location.search).toBe('?range=7d');
  });

  it('shows GPU-hours and money per phase with the waste in money', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    renderAppAt('/');

    const waste = await screen.findByTestId('phase-waste');
    // Idle 75.50 + data-bound 24.50 = 100.00 of 300.00.
    expect(waste.textContent).toBe('Wasted: ¥100.00 (33.3% of ¥300.00 of GPU money): idle ¥75.50, waiting for data ¥24.50.');
    expect(screen.getByTestId('phase-row-idle').textContent).toContain('¥75.50');
    expect(screen.queryByTestId('phase-row-evaluation')).toBeNull();
    // "No data" is split by reason: only the reasons with minutes are listed.
    expect(screen.getByTestId('no-data-row-no_metrics').textContent).toContain('No metrics (running, no samples)');
    expect(screen.getByTestId('no-data-row-not_analysed').textContent).toContain('Not analysed yet (catches up hourly)');
    expect(screen.queryByTestId('no-data-row-stopped')).toBeNull();
    const option = lastChart('phase-breakdown');
    const [money] = option.series as { data: { value: number }[] }[];
    expect(money!.data.map((d) => d.value)).toEqual([200, 24.5, 75.5, 0]);
  });

  it('draws the fleet heatmap in the organization timezone', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    renderAppAt('/');

    expect(await screen.findByRole('img', { name: 'GPU utilization by weekday and hour in Asia/Shanghai' })).toBeTruthy();
    const [series] = lastChart('fleet-heatmap').series as { data: number[][] }[];
    // Monday 09:00 (top row) and Tuesday 03:00.
    expect(series!.data).toEqual([
      [9, 6, 80],
      [3, 5, 10],
    ]);
  });

  it('lists the top open recommendations by saving and accepts one', async () => {
    let accepted = false;
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      ...overviewRoutes({
        'GET /api/v1/recommendations': () => ({
          body: { ...emptyPage, count: accepted ? 1 : 2, results: accepted ? [recommendation(2, '450.50')] : [recommendation(1, '900.00'), recommendation(2, '450.50')] },
        }),
      }),
      'POST /api/v1/recommendations/1/actions': () => {
        accepted = true;
        return { body: { ...recommendation(1, '900.00', { status: 'accepted' }), events: [], evidence: {}, action: {}, realised: null } };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/');

    const top = await screen.findByTestId('top-recommendations');
    await within(top).findByText('Stop gpu-1 when idle');
    const call = server.find('GET', '/api/v1/recommendations')[0]!;
    expect([call.query.get('status'), call.query.get('ordering'), call.query.get('page_size')]).toEqual(['open', '-saving', '5']);
    expect(top.textContent).toContain('¥900.00');
    expect(top.querySelectorAll('button[data-action="accept"]')).toHaveLength(2);
    expect(top.querySelectorAll('button[data-action="dismiss"]')).toHaveLength(2);

    await user.click(top.querySelector('button[data-action="accept"]')!);
    expect(server.find('POST', '/api/v1/recommendations/1/actions')[0]!.body).toEqual({ action: 'accept' });
    expect((await screen.findByTestId('recs-notice')).textContent).toContain('is now Accepted');
    await waitFor(() => expect(within(top).queryByText('Stop gpu-1 when idle')).toBeNull());
  });

  it('shows no action buttons to a viewer', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe({ organization: { ...makeMe().organization!, role: 'viewer' } }) }, ...overviewRoutes() });
    renderAppAt('/');

    const top = await screen.findByTestId('top-recommendations');
    await within(top).findByText('Stop gpu-1 when idle');
    expect(top.querySelectorAll('button[data-action]')).toHaveLength(0);
  });

  it('says in plain words when data last arrived and which account fails', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...overviewRoutes({
        'GET /api/v1/cloud-accounts': {
          body: {
            ...emptyPage,
            count: 2,
            results: [
              cloudAccount(),
              cloudAccount({
                id: 6,
                name: 'Lab account',
                status: 'failing',
                last_error: 'Tencent Cloud rejected the SecretId/SecretKey of this account',
              }),
            ],
          },
        },
      }),
    });
    renderAppAt('/');

    const health = await screen.findByTestId('sync-health');
    await waitFor(() => expect(within(health).getByTestId('sync-last').textContent).toContain('Last successful sync 2 hours ago'));
    const failing = within(health).getByTestId('sync-failing');
    expect(failing.textContent).toBe(
      'Lab account is failing: Tencent Cloud rejected the SecretId/SecretKey of this account. Check it in Settings → Cloud accounts.',
    );
    expect(within(failing).getByRole('link').getAttribute('href')).toBe('/settings/cloud-accounts');
  });

  it('says what to do when there is no budget, no spend and no recommendation', async () => {
    const emptyDay = { ...(await import('./overviewFixtures')).byDayReport('project'), total: '0.00', groups: [] };
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...overviewRoutes({
        'GET /api/v1/budgets': { body: emptyPage },
        'GET /api/v1/recommendations': { body: emptyPage },
        'GET /api/v1/costs': (call) =>
          call.query.get('granularity') === 'day' ? { body: emptyDay } : { body: (overviewRoutes()['GET /api/v1/costs'] as (c: typeof call) => { body: unknown })(call).body },
        'GET /api/v1/utilization/hour-of-week': { body: { start: '2026-10-13', end: '2026-11-11', timezone: 'Asia/Shanghai', project: null, cells: [] } },
      }),
    });
    renderAppAt('/');

    const budgetEmpty = await screen.findByTestId('budget-empty');
    expect(within(budgetEmpty).getByRole('link', { name: 'Settings → Budgets' }).getAttribute('href')).toBe('/settings/budgets');
    expect((await screen.findByTestId('spend-empty')).textContent).toContain('Choose a longer period');
    expect((await screen.findByTestId('recs-empty')).textContent).toContain('No open recommendation');
    expect((await screen.findByTestId('heatmap-empty')).textContent).toContain('No GPU metrics in these days');
    expect(charts.filter((c) => c.name === 'spend-over-time')).toHaveLength(0);
  });

  it('shows a section error with a retry, and the rest of the page meanwhile', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...overviewRoutes({ 'GET /api/v1/utilization': () => (fail ? SERVER_ERROR : { body: (overviewRoutes()['GET /api/v1/utilization'] as { body: unknown }).body }) }),
    });
    const user = userEvent.setup();
    renderAppAt('/');

    const section = await screen.findByTestId('phase-section');
    expect((await within(section).findByRole('alert')).textContent).toContain('Something broke on our side.');
    expect((await screen.findByTestId('mtd-spend')).textContent).toBe('¥1,100.00');
    fail = false;
    await user.click(within(section).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('phase-waste')).toBeTruthy();
  });

  it('keeps the welcome state while no cloud account is connected', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes({ 'GET /api/v1/cloud-accounts': { body: emptyPage } }) });
    renderAppAt('/');

    expect((await screen.findByTestId('overview-empty')).textContent).toContain('Welcome to GPU Ledger, Lin Wei');
    expect(screen.queryByTestId('overview-sections')).toBeNull();
  });
});

describe('the project page', () => {
  it('shows the same sections scoped to the project', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    renderAppAt('/projects/vision');

    await screen.findByTestId('mtd-spend');
    expect(screen.getByTestId('project-title').textContent).toBe('Vision');
    await screen.findByRole('img', { name: 'Daily spend stacked by Instance type' });
    for (const call of server.find('GET', '/api/v1/costs')) expect(call.query.get('project')).toBe('vision');
    expect(server.find('GET', '/api/v1/utilization')[0]!.query.get('project')).toBe('vision');
    expect(server.find('GET', '/api/v1/utilization/hour-of-week')[0]!.query.get('project')).toBe('vision');
    await screen.findByTestId('top-recommendations');
    await waitFor(() => expect(server.find('GET', '/api/v1/recommendations')[0]!.query.get('project')).toBe('1'));
    // The project's own budget (¥1,000.00), not the organization's.
    await waitFor(() => expect(screen.getByTestId('budget-evidence').textContent).toContain('of ¥1,000.00'));
    expect(screen.getByTestId('budget-status').textContent).toContain('Project budget');
  });

  it('says so for a project that does not exist', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    renderAppAt('/projects/nope');

    expect((await screen.findByTestId('project-not-found')).textContent).toContain('“nope”');
  });
});

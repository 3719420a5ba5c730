import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { emptyPage, makeMe, mockApi } from './mockApi';
import type { Budget, InstanceUsage, InstanceUsagePage, Project, ProjectUsage, ProjectUsageList } from '../api/types';
import { tagEntries } from '../pages/InstancesPage';
import { addDays, todayIn } from '../dateRange';

const DAYS = ['2026-11-01', '2026-11-02', '2026-11-03'];

function usageRow(overrides: Partial<InstanceUsage> = {}): InstanceUsage {
  return {
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
    tags: { team: 'nlp', owner: 'zhao' },
    cost: '1234.50000000',
    waste: '300.25000000',
    gpu_util_avg_pct: 42.4,
    gpu_hours: 72,
    util_daily: [40, null, 45],
    ...overrides,
  };
}

const ROWS: InstanceUsage[] = [
  usageRow(),
  usageRow({
    id: 2,
    provider_id: 'ins-a100x8',
    name: 'pretrain-a100',
    project: null,
    gpu_model: 'NVIDIA A100',
    gpu_count: 8,
    charge_type: 'PREPAID',
    tags: {},
    cost: '500.00000000',
    waste: '0.00000000',
    gpu_util_avg_pct: null,
    util_daily: [null, null, null],
  }),
  usageRow({ id: 3, provider_id: 'ins-spot1', name: '', charge_type: 'SPOTPAID', state: 'TERMINATED', waste: null }),
];

function usagePage(results: InstanceUsage[], count = results.length, ordering = '-cost'): InstanceUsagePage {
  return {
    basis: 'amortized',
    count,
    next: null,
    previous: null,
    start: DAYS[0]!,
    end: DAYS[2]!,
    timezone: 'Asia/Shanghai',
    currency: 'CNY',
    ordering,
    days: DAYS,
    facets: {
      instance_type: ['GN7.2XLARGE32'],
      gpu_model: ['NVIDIA A100', 'NVIDIA T4'],
      charge_type: ['POSTPAID_BY_HOUR', 'PREPAID', 'SPOTPAID'],
      state: ['RUNNING', 'TERMINATED'],
      region: ['ap-guangzhou', 'ap-shanghai'],
    },
    results,
  };
}

const PROJECTS: Project[] = [
  { id: 3, name: 'NLP', slug: 'nlp', tag_values: ['nlp', 'NLP team'] },
  { id: 4, name: 'Vision', slug: 'vision', tag_values: [] },
];

const INSTANCES_URL = '/api/v1/usage/instances';

describe('instances page', () => {
  it('shows each instance with cost, waste, utilization and its trend, linked to its page', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      [`GET ${INSTANCES_URL}`]: { body: usagePage(ROWS) },
    });
    renderAppAt('/instances');

    const table = await screen.findByTestId('instances-table');
    const t4 = within(table).getByTestId('instance-ins-9bxebleo');
    const link = within(t4).getByTestId('instance-link');
    expect(link.textContent).toBe('train-t4-01');
    expect(link.getAttribute('href')).toBe('/instances/1');
    expect(within(t4).getByTestId('instance-cost').textContent).toBe('¥1,234.50');
    expect(within(t4).getByTestId('instance-waste').textContent).toBe('¥300.25');
    expect(within(t4).getByTestId('instance-util').textContent).toBe('42%');
    expect(within(t4).getByRole('img', { name: 'Daily GPU utilization of train-t4-01' }).getAttribute('data-points')).toBe('2');
    expect(t4.textContent).toContain('Pay-as-you-go');
    expect(within(t4).getByText('Running').className).toContain('badge--success');
    expect(within(t4).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['team: nlp', 'owner: zhao']);
    expect(within(t4).getByRole('link', { name: 'NLP' }).getAttribute('href')).toBe('/projects/nlp');

    const a100 = screen.getByTestId('instance-ins-a100x8');
    expect(a100.textContent).toContain('Monthly subscription');
    expect(within(a100).getByText('Unallocated')).toBeTruthy();
    expect(within(a100).getByTestId('instance-util').textContent).toBe('—');

    const spot = screen.getByTestId('instance-ins-spot1');
    expect(within(spot).getByTestId('instance-link').textContent).toBe('ins-spot1');
    expect(within(spot).getByText('Terminated').className).toContain('badge--muted');
    expect(spot.className).toContain('row--muted');
    expect(within(spot).getByTestId('instance-waste').textContent).toBe('—');

    const get = server.find('GET', INSTANCES_URL)[0]!.query;
    expect(get.get('ordering')).toBe('-cost');
    expect(get.get('page')).toBe('1');
    expect(get.get('page_size')).toBe('50');
    // The dashboard's default range (the Overview's): the last 30 local days, both ends included.
    const start = new Date(`${get.get('start')}T00:00:00Z`).getTime();
    const end = new Date(`${get.get('end')}T00:00:00Z`).getTime();
    expect((end - start) / 86_400_000).toBe(29);
    expect(get.has('region')).toBe(false);
  });

  it('marks today so far in the utilization trend when the range ends today', async () => {
    const today = todayIn('Asia/Shanghai');
    const days = [addDays(today, -2), addDays(today, -1), today];
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      [`GET ${INSTANCES_URL}`]: { body: { ...usagePage([usageRow({ util_daily: [40, 50, 20] })]), days } },
    });
    renderAppAt('/instances');

    const row = within(await screen.findByTestId('instances-table')).getByTestId('instance-ins-9bxebleo');
    const trend = within(row).getByRole('img', { name: 'Daily GPU utilization of train-t4-01; the last point is today so far' });
    expect(trend.querySelector('circle[data-partial="today"] title')!.textContent).toBe('Today so far (the day is not over)');
  });

  it('sorts by a header button, descending first, with the sort in the URL and aria-sort', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      [`GET ${INSTANCES_URL}`]: (call) => ({ body: usagePage(ROWS, 120, call.query.get('ordering') ?? '-cost') }),
    });
    const user = userEvent.setup();
    renderAppAt('/instances?page=2');
    const last = () => server.find('GET', INSTANCES_URL).at(-1)!.query;

    await screen.findByTestId('instances-table');
    expect(last().get('page')).toBe('2');
    const waste = screen.getByRole('button', { name: /Idle waste/ });
    expect(waste.getAttribute('data-sort')).toBe('waste');
    expect(waste.closest('th')!.getAttribute('aria-sort')).toBe('none');
    expect(document.querySelector('button[data-sort="cost"]')!.closest('th')!.getAttribute('aria-sort')).toBe('descending');

    await user.click(waste);
    await waitFor(() => expect(last().get('ordering')).toBe('-waste'));
    expect(last().get('page')).toBe('1');
    expect(window.location.search).toBe('?ordering=-waste');
    expect((await screen.findByRole('button', { name: /Idle waste/ })).closest('th')!.getAttribute('aria-sort')).toBe('descending');

    await user.click(screen.getByRole('button', { name: /Idle waste/ }));
    await waitFor(() => expect(last().get('ordering')).toBe('waste'));
    expect(window.location.search).toBe('?ordering=waste');

    await user.click(document.querySelector<HTMLButtonElement>('button[data-sort="name"]')!);
    await waitFor(() => expect(last().get('ordering')).toBe('name'));

    // Keyboard: the headers are buttons.
    const util = document.querySelector<HTMLButtonElement>('button[data-sort="util"]')!;
    util.focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(last().get('ordering')).toBe('-util'));
  });

  it('filters from the URL and the controls, back on page 1, and clears them', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      [`GET ${INSTANCES_URL}`]: (call) => ({ body: usagePage(call.query.get('region') ? [ROWS[0]!] : ROWS, call.query.get('region') ? 1 : 120) }),
    });
    const user = userEvent.setup();
    renderAppAt('/instances?project=nlp&page=3');
    const last = () => server.find('GET', INSTANCES_URL).at(-1)!.query;

    await screen.findByTestId('instances-table');
    expect(last().get('project')).toBe('nlp');
    const project = screen.getByLabelText('Project') as HTMLSelectElement;
    await waitFor(() => expect(project.selectedOptions[0]!.textContent).toBe('NLP'));

    await user.selectOptions(screen.getByLabelText('Region'), 'ap-guangzhou');
    await waitFor(() => expect(last().get('region')).toBe('ap-guangzhou'));
    expect(last().get('page')).toBe('1');
    await user.selectOptions(screen.getByLabelText('GPU model'), 'NVIDIA T4');
    await user.selectOptions(screen.getByLabelText('Billing'), 'SPOTPAID');
    await waitFor(() => expect(last().get('charge_type')).toBe('SPOTPAID'));
    expect(last().get('gpu_model')).toBe('NVIDIA T4');

    await user.type(screen.getByLabelText('Search'), 'train');
    await user.type(screen.getByLabelText('Tag'), 'team:nlp');
    await user.type(screen.getByLabelText('GPU util from (%)'), '10');
    await user.type(screen.getByLabelText('GPU util to (%)'), '60');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(last().get('search')).toBe('train'));
    expect(last().get('tag')).toBe('team:nlp');
    expect(last().get('util_min')).toBe('10');
    expect(last().get('util_max')).toBe('60');

    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(window.location.search).toBe(''));
    expect((screen.getByLabelText('Search') as HTMLInputElement).value).toBe('');
  });

  it('says when no instance matches the filters', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      [`GET ${INSTANCES_URL}`]: { body: usagePage([]) },
    });
    renderAppAt('/instances?state=STOPPED');

    expect(await screen.findByText('No instances match these filters.')).toBeTruthy();
    expect((screen.getByLabelText('State') as HTMLSelectElement).value).toBe('STOPPED');
    expect(screen.queryByTestId('instances-empty')).toBeNull();
  });

  it('keeps the honest empty state, pointing to Settings → Cloud accounts', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      [`GET ${INSTANCES_URL}`]: { body: usagePage([]) },
    });
    renderAppAt('/instances');

    const empty = await screen.findByTestId('instances-empty');
    expect(empty.textContent).toContain('No instances yet');
    expect(empty.textContent).toContain('needs a connected Tencent Cloud account');
    expect(within(empty).getByRole('link', { name: 'Settings → Cloud accounts' }).getAttribute('href')).toBe(
      '/settings/cloud-accounts',
    );
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows a load error with a retry', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      [`GET ${INSTANCES_URL}`]: () =>
        fail
          ? { status: 500, body: { error: { code: 'server_error', message: 'Something broke on our side.', fields: {} } } }
          : { body: usagePage([ROWS[0]!]) },
    });
    const user = userEvent.setup();
    renderAppAt('/instances');

    expect(await screen.findByText('Something broke on our side.')).toBeTruthy();
    expect(screen.queryByTestId('instances-empty')).toBeNull();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('instance-ins-9bxebleo')).toBeTruthy();
  });
});

describe('instance tags', () => {
  it('reads key -> value tags and shows anything else as no tags', () => {
    expect(tagEntries({ team: 'nlp', cost_center: 42 })).toEqual([
      ['team', 'nlp'],
      ['cost_center', '42'],
    ]);
    expect(tagEntries(null)).toEqual([]);
    expect(tagEntries(['team'])).toEqual([]);
    expect(tagEntries('team=nlp')).toEqual([]);
  });
});

function projectUsage(overrides: Partial<ProjectUsage> = {}): ProjectUsage {
  return {
    slug: 'nlp',
    name: 'NLP',
    cost: '900.00000000',
    cost_daily: ['300.00000000', '0.00000000', '600.00000000'],
    gpu_hours: 100.25,
    gpu_util_avg_pct: 55,
    waste: '120.00000000',
    instance_count: 2,
    ...overrides,
  };
}

function projectsUsage(results: ProjectUsage[]): ProjectUsageList {
  return { basis: 'amortized', start: DAYS[0]!, end: DAYS[2]!, timezone: 'Asia/Shanghai', currency: 'CNY', days: DAYS, results };
}

const NLP_BUDGET = {
  id: 9,
  name: 'NLP monthly',
  scope: 'project',
  project: 3,
  amount: '2000.00',
  currency: 'CNY',
  actual_thresholds_pct: [50, 80, 100],
  forecast_thresholds_pct: [100],
  status: {
    month: '2026-11',
    spent: '1500.00',
    daily_average: '50.00',
    spent_before_today: '0.00',
    known_purchases: '0.00',
    days_left: '10',
    forecast: '2000.00',
    percent_used: '75.00',
    forecast_pct: '100.00',
    thresholds_crossed: [],
    forecast_method: '',
  },
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
} satisfies Budget;

describe('projects page', () => {
  it('shows spend, trend, GPU-hours, utilization, waste and budget per project, linked to its page', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      'GET /api/v1/budgets': { body: { ...emptyPage, count: 1, results: [NLP_BUDGET] } },
      'GET /api/v1/usage/projects': {
        body: projectsUsage([
          projectUsage(),
          projectUsage({ slug: 'vision', name: 'Vision', cost: '0.00000000', cost_daily: ['0', '0', '0'], waste: '0.00000000', gpu_util_avg_pct: null }),
          projectUsage({ slug: null, name: 'Unallocated', cost: '50.00000000' }),
        ]),
      },
    });
    renderAppAt('/projects');

    const table = await screen.findByTestId('projects-table');
    const nlp = within(table).getByTestId('project-nlp');
    expect(within(nlp).getByTestId('project-link').getAttribute('href')).toBe('/projects/nlp');
    expect(within(nlp).getByTestId('project-spend').textContent).toBe('¥900.00');
    expect(nlp.textContent).toContain('¥120.00');
    expect(nlp.textContent).toContain('55%');
    expect(nlp.textContent).toContain('100.3');
    expect(within(nlp).getByTestId('project-budget').textContent).toContain('75% of ¥2,000.00 this month');
    expect(within(nlp).getByRole('img', { name: 'Daily spend of NLP' }).getAttribute('data-points')).toBe('3');
    expect(
      within(within(nlp).getByRole('list', { name: 'Tag values of NLP' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['nlp', 'NLP team']);
    expect(within(nlp).getByRole('link', { name: 'Instances of NLP' }).getAttribute('href')).toBe('/instances?project=nlp');

    const vision = screen.getByTestId('project-vision');
    expect(vision.textContent).toContain('No budget');
    const unallocated = screen.getByTestId('project-unallocated');
    expect(unallocated.textContent).toContain('Unallocated');
    expect(within(unallocated).queryByTestId('project-link')).toBeNull();
    expect(screen.queryByTestId('projects-empty')).toBeNull();

    const query = server.find('GET', '/api/v1/usage/projects')[0]!.query;
    expect(query.get('start')).toBeTruthy();
    expect(query.get('end')).toBeTruthy();
  });

  it('marks today so far in the spend trend when the range ends today, in both languages', async () => {
    const today = todayIn('Asia/Shanghai');
    const days = [addDays(today, -2), addDays(today, -1), today];
    const usage = (results: ProjectUsage[]) => ({ body: { ...projectsUsage(results), days } });
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      'GET /api/v1/budgets': { body: emptyPage },
      'GET /api/v1/usage/projects': usage([projectUsage()]),
    });
    const { unmount } = renderAppAt('/projects');

    const nlp = within(await screen.findByTestId('projects-table')).getByTestId('project-nlp');
    const trend = within(nlp).getByRole('img', { name: 'Daily spend of NLP; the last point is today so far' });
    const partial = trend.querySelector('circle[data-partial="today"]')!;
    expect(partial.querySelector('title')!.textContent).toBe('Today so far (the day is not over)');
    // Drawn apart: the whole days are one solid line, today is reached by a dashed one.
    expect(trend.querySelectorAll('path:not([stroke-dasharray])')).toHaveLength(1);
    expect(trend.querySelector('path[stroke-dasharray]')).not.toBeNull();
    unmount();

    mockApi({
      'GET /api/v1/me': { body: makeMe({ language: 'zh-hans' }) },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      'GET /api/v1/budgets': { body: emptyPage },
      'GET /api/v1/usage/projects': usage([projectUsage()]),
    });
    renderAppAt('/projects');
    const zh = await screen.findByRole('img', { name: 'NLP 的每日支出；最后一个点是今天截至目前' });
    expect(zh.querySelector('circle[data-partial="today"] title')!.textContent).toBe('今天截至目前（当天尚未结束）');
  });

  it('marks no partial day in a range that ended before today', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      'GET /api/v1/budgets': { body: emptyPage },
      'GET /api/v1/usage/projects': { body: projectsUsage([projectUsage()]) },
    });
    renderAppAt('/projects');
    const trend = within(await screen.findByTestId('project-nlp')).getByRole('img', { name: 'Daily spend of NLP' });
    expect(trend.querySelector('[data-partial]')).toBeNull();
  });

  it('shows an empty state when there are no projects', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      'GET /api/v1/budgets': { body: emptyPage },
      'GET /api/v1/usage/projects': { body: projectsUsage([projectUsage({ slug: null, name: 'Unallocated' })]) },
    });
    renderAppAt('/projects');

    const empty = await screen.findByTestId('projects-empty');
    expect(empty.textContent).toContain('No projects yet');
    expect(within(empty).getByRole('link', { name: 'Settings → Cloud accounts' }).getAttribute('href')).toBe(
      '/settings/cloud-accounts',
    );
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows a load error with a retry', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      'GET /api/v1/budgets': { body: emptyPage },
      'GET /api/v1/usage/projects': () =>
        fail
          ? { status: 500, body: { error: { code: 'server_error', message: 'Something broke on our side.', fields: {} } } }
          : { body: projectsUsage([projectUsage()]) },
    });
    const user = userEvent.setup();
    renderAppAt('/projects');

    expect(await screen.findByText('Something broke on our side.')).toBeTruthy();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('projects-table')).toBeTruthy();
  });
});

describe('older instance links', () => {
  it('rewrites a project id in the URL to its slug before asking', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      [`GET ${INSTANCES_URL}`]: { body: usagePage([ROWS[0]!]) },
    });
    renderAppAt('/instances?project=3');

    await screen.findByTestId('instances-table');
    expect(window.location.search).toBe('?project=nlp');
    expect(server.find('GET', INSTANCES_URL).map((call) => call.query.get('project'))).toEqual(['nlp']);
  });
});

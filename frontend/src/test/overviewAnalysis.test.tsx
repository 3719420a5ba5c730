import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { EMPTY_SUMMARY, makeMe, mockApi } from './mockApi';
import type { AnalysisSummary, ProjectWaste, WasteTotals } from '../api/untypedEndpoints';
import type { ChartOption } from '../components/Chart';

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

function totals(overrides: Partial<WasteTotals> = {}): WasteTotals {
  return {
    instance_count: 4,
    gpu_hours: '1120.5000',
    cost: '12208.40',
    idle_cost: '1500.25',
    data_bound_cost: '310.10',
    wasted_cost: '1810.35',
    unknown_cost: '0.87',
    phases: {
      unknown: { minutes: 60, gpu_hours: '1.0000', cost: '0.87' },
      idle: { minutes: 20000, gpu_hours: '333.3333', cost: '1500.25' },
      data_processing: { minutes: 3000, gpu_hours: '50.0000', cost: '310.10' },
      evaluation: { minutes: 0, gpu_hours: '0.0000', cost: '0.00' },
      training: { minutes: 44170, gpu_hours: '736.1667', cost: '10397.18' },
    },
    cost_sources: { bills: 4, list_price: 0, unpriced: 0 },
    ...overrides,
  };
}

function group(project_id: number | null, project_name: string, overrides: Partial<WasteTotals>): ProjectWaste {
  return { project_id, project_name, ...totals(overrides) };
}

function summary(overrides: Partial<AnalysisSummary> = {}): AnalysisSummary {
  return {
    start: '2026-10-20T08:00:00Z',
    end: '2026-10-27T08:00:00Z',
    group_by: 'project',
    currency: 'CNY',
    totals: totals(),
    groups: [
      // Ordered by name, as the API sends them: the page sorts by wasted money.
      group(null, 'Unallocated', {
        instance_count: 1,
        gpu_hours: '20.0000',
        cost: '8.40',
        idle_cost: '0.00',
        data_bound_cost: '0.00',
        wasted_cost: '0.00',
      }),
      group(2, 'nlp', {
        instance_count: 1,
        gpu_hours: '600.5000',
        cost: '9200.00',
        idle_cost: '200.00',
        data_bound_cost: '10.10',
        wasted_cost: '210.10',
      }),
      group(1, 'vision', {
        instance_count: 2,
        gpu_hours: '500.0000',
        cost: '3000.00',
        idle_cost: '1300.25',
        data_bound_cost: '300.00',
        wasted_cost: '1600.25',
      }),
    ],
    ...overrides,
  };
}

function rowTexts(row: HTMLElement): string[] {
  return Array.from(row.querySelectorAll('th, td')).map((c) => c.textContent ?? '');
}

beforeEach(() => {
  charts.length = 0;
});

describe('overview with data', () => {
  it('shows the last 7 days: cost, GPU-hours, idle and data-bound money, by phase and by project', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, 'GET /api/v1/analysis/summary': { body: summary() } });
    renderAppAt('/');

    const fleet = await screen.findByTestId('fleet-summary');
    // The browser test relies on these.
    expect(screen.getByTestId('user-email').textContent).toBe('lin@acme.example');
    expect(screen.getByTestId('org-name').textContent).toBe('Acme AI');
    expect(screen.queryByTestId('overview-empty')).toBeNull();

    expect(within(fleet).getByRole('heading', { name: 'Last 7 days' })).toBeTruthy();
    expect(screen.getByTestId('fleet-period').textContent).toBe(
      '20 Oct 2026, 16:00 – 27 Oct 2026, 16:00 (Asia/Shanghai) · 4 GPU instances',
    );
    expect(screen.getByTestId('fleet-cost').textContent).toContain('¥12,208.40');
    expect(screen.getByTestId('fleet-gpu-hours').textContent).toContain('1,120.50');
    const idle = screen.getByTestId('fleet-idle');
    expect(idle.textContent).toContain('waste');
    expect(idle.textContent).toContain('¥1,500.25');
    expect(idle.textContent).toContain('12.3% of cost');
    expect(screen.getByTestId('fleet-data-bound').textContent).toContain('¥310.10');
    expect(screen.queryByTestId('fleet-note-unpriced')).toBeNull();

    // Cost by phase: a donut plus the amounts in words; phases without money are left out.
    expect(await screen.findByRole('img', { name: 'GPU cost by phase' })).toBeTruthy();
    const byPhase = screen.getByRole('list', { name: 'Cost by phase' });
    expect(within(byPhase).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Training¥10,397.1885.2%',
      'Data processing (data-bound)¥310.102.5%',
      'Idle¥1,500.2512.3%',
      'No data¥0.870.0%',
    ]);
    const pie = charts.find((c) => c.ariaLabel === 'GPU cost by phase')!.option;
    const slices = (pie.series as { data: { name: string; cost: string }[] }[])[0]!.data;
    expect(slices.map((d) => [d.name, d.cost])).toEqual([
      ['Training', '10397.18'],
      ['Data processing (data-bound)', '310.10'],
      ['Idle', '1500.25'],
      ['No data', '0.87'],
    ]);

    // Per project, most wasted money first.
    const table = screen.getByRole('table', { name: 'Projects by wasted money' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map(rowTexts)).toEqual([
      ['vision', '500.00', '¥3,000.00', '¥1,300.25', '¥300.00', '53.3%'],
      ['nlp', '600.50', '¥9,200.00', '¥200.00', '¥10.10', '2.3%'],
      ['Unallocated', '20.00', '¥8.40', '¥0.00', '¥0.00', '0.0%'],
    ]);
    expect(within(rows[0]!).getByRole('link', { name: 'vision' }).getAttribute('href')).toBe('/instances?project=1');
    expect(within(rows[2]!).queryByRole('link')).toBeNull();

    const call = server.find('GET', '/api/v1/analysis/summary')[0]!;
    expect(call.query.get('group_by')).toBe('project');
  });

  it('says which instances have no price or only a list price', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/analysis/summary': {
        body: summary({ totals: totals({ cost_sources: { bills: 1, list_price: 1, unpriced: 2 } }) }),
      },
    });
    renderAppAt('/');

    expect((await screen.findByTestId('fleet-note-unpriced')).textContent).toContain(
      '2 of 4 instances have no known price',
    );
    expect(screen.getByTestId('fleet-note-list-price').textContent).toContain('1 of 4 instances are estimated from list prices');
  });

  it('says when nothing in the period has a price, instead of an empty donut', async () => {
    const zero = { minutes: 600, gpu_hours: '10.0000', cost: '0.00' };
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/analysis/summary': {
        body: summary({
          totals: totals({
            cost: '0.00',
            idle_cost: '0.00',
            data_bound_cost: '0.00',
            wasted_cost: '0.00',
            phases: { training: zero, idle: zero },
            cost_sources: { bills: 0, list_price: 0, unpriced: 4 },
          }),
          groups: [],
        }),
      },
    });
    renderAppAt('/');

    expect((await screen.findByTestId('cost-by-phase-empty')).textContent).toBe('No priced GPU time in this period.');
    expect(screen.queryByRole('img', { name: 'GPU cost by phase' })).toBeNull();
    expect(screen.getByTestId('fleet-idle').textContent).toContain('— of cost on idle GPUs');
    expect(screen.queryByRole('table', { name: 'Projects by wasted money' })).toBeNull();
  });

  it('keeps the welcome state when the organization has no GPU instance yet', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, 'GET /api/v1/analysis/summary': EMPTY_SUMMARY });
    renderAppAt('/');

    expect((await screen.findByTestId('overview-empty')).textContent).toContain('Welcome to GPU Ledger, Lin Wei');
    expect(screen.queryByTestId('fleet-summary')).toBeNull();
    expect(screen.queryByTestId('chart')).toBeNull();
  });

  it('shows a load error with a retry instead of the welcome state', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/analysis/summary': () =>
        fail
          ? { status: 500, body: { error: { code: 'server_error', message: 'Something broke on our side.', fields: {} } } }
          : { body: summary() },
    });
    const user = userEvent.setup();
    renderAppAt('/');

    expect((await screen.findByRole('alert')).textContent).toContain('Something broke on our side.');
    expect(screen.queryByTestId('overview-empty')).toBeNull();
    expect(screen.getByTestId('org-name').textContent).toBe('Acme AI');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('fleet-summary')).toBeTruthy();
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { EMPTY_OVERVIEW, makeMe, mockApi, NOT_AUTHENTICATED, type MockResponse, type RecordedCall } from './mockApi';
import { byDayReport, overviewRoutes } from './overviewFixtures';
import { i18n } from '../i18n';

const CSRF = { body: { csrfToken: 'token' } };

// happy-dom has no canvas for ECharts to draw on: the Overview's charts render as placeholders here.
vi.mock('../components/Chart', async () => {
  const { createElement } = await import('react');
  return { Chart: ({ name }: { name?: string }) => createElement('div', { 'data-testid': 'chart', 'data-chart': name }) };
});

describe('the UI language', () => {
  it('is the one stored for the person, whatever the browser says', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe({ language: 'zh-hans' }) }, ...EMPTY_OVERVIEW });
    renderAppAt('/');

    const nav = await screen.findByRole('navigation', { name: '主导航' });
    expect(within(nav).getAllByRole('link').map((a) => a.textContent)).toEqual(['概览', '项目', '实例', '优化建议', '报表', '设置']);
    expect((await screen.findByTestId('overview-empty')).textContent).toContain('欢迎使用 GPU Ledger，Lin Wei');
    expect((screen.getByTestId('language-picker') as HTMLSelectElement).value).toBe('zh-CN');
  });

  it('switches at once when chosen and is stored on the server for the next visit', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      ...EMPTY_OVERVIEW,
      'PATCH /api/v1/me': (call) => ({ body: makeMe({ language: (call.body as { language: 'en' | 'zh-hans' }).language }) }),
    });
    const user = userEvent.setup();
    renderAppAt('/');
    expect(await screen.findByRole('link', { name: 'Overview' })).toBeTruthy();

    await user.selectOptions(screen.getByLabelText('Language'), 'zh-CN');

    expect(await screen.findByRole('link', { name: '概览' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '退出登录' })).toBeTruthy();
    await waitFor(() => expect(server.find('PATCH', '/api/v1/me')).toHaveLength(1));
    expect(server.find('PATCH', '/api/v1/me')[0]!.body).toEqual({ language: 'zh-hans' });
  });

  it('goes back to the previous language and says so when the server does not store it', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      ...EMPTY_OVERVIEW,
      'PATCH /api/v1/me': { status: 503, body: { error: { code: 'unavailable', message: 'Down for maintenance.', fields: {} } } },
    });
    const user = userEvent.setup();
    renderAppAt('/');
    await screen.findByRole('link', { name: 'Overview' });

    await user.selectOptions(screen.getByLabelText('Language'), 'zh-CN');

    expect((await screen.findByText(/Could not save your language/)).textContent).toBe(
      'Could not save your language: Down for maintenance.',
    );
    expect(screen.getByRole('link', { name: 'Overview' })).toBeTruthy();
  });

  it('can be chosen on the sign-in page, for this page only', async () => {
    const server = mockApi({ 'GET /api/v1/me': NOT_AUTHENTICATED });
    const user = userEvent.setup();
    renderAppAt('/login');
    await screen.findByRole('heading', { name: 'Sign in' });

    await user.selectOptions(screen.getByLabelText('Language'), 'zh-CN');

    expect(await screen.findByRole('heading', { name: '登录' })).toBeTruthy();
    expect(screen.getByLabelText('邮箱')).toBeTruthy();
    expect(server.find('PATCH', '/api/v1/me')).toHaveLength(0);
  });
});

describe('a new account', () => {
  it('starts in the language its sign-up page was shown in', async () => {
    const server = mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/signup': { status: 201, body: { email: 'mei@example.test', message: '确认链接已发送。' } },
    });
    await i18n.changeLanguage('zh-CN'); // As for a browser whose language is Chinese.
    const user = userEvent.setup();
    renderAppAt('/signup');

    await user.type(await screen.findByLabelText('您的姓名'), 'Mei');
    await user.type(screen.getByLabelText('工作邮箱'), 'mei@example.test');
    await user.type(screen.getByLabelText('密码'), 'correct-horse-battery-9');
    await user.type(screen.getByLabelText('组织名称'), 'Lab');
    await user.click(screen.getByRole('button', { name: '创建账号' }));

    await screen.findByTestId('signup-check-inbox');
    expect((server.find('POST', '/api/v1/auth/signup')[0]!.body as { language: string }).language).toBe('zh-hans');
  });
});

describe('the theme toggle', () => {
  it('cycles light, dark and the system theme, kept in this browser', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...EMPTY_OVERVIEW });
    const user = userEvent.setup();
    renderAppAt('/');
    const toggle = await screen.findByTestId('theme-toggle');
    const root = document.documentElement;
    expect(root.hasAttribute('data-theme')).toBe(false);
    expect(toggle.textContent).toContain('System theme');

    toggle.focus();
    await user.keyboard('{Enter}');
    expect(root.getAttribute('data-theme')).toBe('light');
    expect(localStorage.getItem('gpu-ledger.theme')).toBe('light');
    await user.keyboard(' ');
    expect(root.getAttribute('data-theme')).toBe('dark');
    expect(toggle.textContent).toContain('Dark theme');
    await user.click(toggle);
    expect(root.hasAttribute('data-theme')).toBe(false);
    expect(localStorage.getItem('gpu-ledger.theme')).toBeNull();
  });
});

describe('the Overview date range', () => {
  const NOW = new Date('2026-10-31T17:00:00Z'); // 1 November, 01:00 in Shanghai: a new month there.

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  it('asks for the range of a shared link and for each preset chosen, in the organization timezone', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    renderAppAt('/?range=last-month');
    await screen.findByTestId('spend-section');

    // October in Shanghai, both ends included (as /costs and /utilization read them).
    await waitFor(() => expect(server.find('GET', '/api/v1/utilization')).toHaveLength(1));
    const first = server.find('GET', '/api/v1/utilization')[0]!;
    expect([first.query.get('start'), first.query.get('end')]).toEqual(['2026-10-01', '2026-10-31']);
    const spend = server.find('GET', '/api/v1/costs').find((c) => c.query.get('granularity') === 'day')!;
    expect([spend.query.get('start'), spend.query.get('end'), spend.query.get('group_by')]).toEqual(['2026-10-01', '2026-10-31', 'project']);
  });

  it('keeps the picker when the chosen period is empty, instead of the welcome', async () => {
    const emptyDays = { ...byDayReport('project'), total: '0.00', groups: [] };
    const routes = overviewRoutes();
    const costs = routes['GET /api/v1/costs'] as (call: RecordedCall) => MockResponse;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...routes,
      'GET /api/v1/costs': (call) => (call.query.get('granularity') === 'day' ? { body: emptyDays } : costs(call)),
    });
    renderAppAt('/?range=last-month');

    const empty = await screen.findByTestId('spend-empty');
    expect(empty.textContent).toContain('No spend in these days');
    expect(within(screen.getByTestId('date-range')).getByRole('button', { name: 'Last month' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.queryByTestId('overview-empty')).toBeNull();
  });

  it('changes the range from the picker and keeps it in the URL', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...overviewRoutes() });
    const user = userEvent.setup();
    renderAppAt('/');
    await screen.findByTestId('spend-section');
    await waitFor(() => expect(server.find('GET', '/api/v1/utilization')).toHaveLength(1));
    const first = server.find('GET', '/api/v1/utilization')[0]!;
    // The default: the last 30 days, today (1 November in Shanghai) included.
    expect([first.query.get('start'), first.query.get('end')]).toEqual(['2026-10-03', '2026-11-01']);

    await user.click(screen.getByRole('button', { name: 'Month to date' }));
    await waitFor(() => expect(server.find('GET', '/api/v1/utilization')).toHaveLength(2));
    const mtd = server.find('GET', '/api/v1/utilization')[1]!;
    expect([mtd.query.get('start'), mtd.query.get('end')]).toEqual(['2026-11-01', '2026-11-01']);
    expect(window.location.search).toBe('?range=mtd');
    expect(await screen.findByRole('heading', { name: 'Month to date' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Last 90 days' }));
    await waitFor(() => expect(server.find('GET', '/api/v1/utilization')).toHaveLength(3));
    expect(server.find('GET', '/api/v1/utilization')[2]!.query.get('start')).toBe('2026-08-04');
    expect(window.location.search).toBe('?range=90d');
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { CSRF, EMPTY_SUMMARY, emptyPage, makeMe, mockApi, NOT_AUTHENTICATED } from './mockApi';
import type { CloudAccount, SyncRun, SyncStatus } from '../api/types';

afterEach(() => {
  vi.useRealTimers();
});

const invalid = (fields: Record<string, string[]>) => ({
  status: 400,
  body: { error: { code: 'invalid', message: 'Invalid input.', fields } },
});

function run(overrides: Partial<SyncRun>): SyncRun {
  return {
    state: 'running',
    done: 0,
    planned: null,
    started_at: '2026-11-30T10:00:00Z',
    updated_at: '2026-11-30T10:00:02Z',
    finished_at: null,
    summary: '',
    ...overrides,
  };
}

function syncOf(runs: Partial<Record<SyncStatus['kind'], SyncRun | null>>): SyncStatus[] {
  return (['inventory', 'prices', 'metrics', 'bills', 'balance'] as const).map((kind) => ({
    kind,
    last_success_at: runs[kind]?.state === 'done' ? '2026-11-30T10:01:00Z' : null,
    next_run_at: null,
    last_error: '',
    progress: runs[kind] ?? null,
  }));
}

function account(sync: SyncStatus[], overrides: Partial<CloudAccount> = {}): CloudAccount {
  return {
    id: 5,
    name: 'Simulated',
    provider: 'tencent',
    secret_id: 'AKIDsimulated',
    has_write_credential: false,
    write_secret_id: '',
    automation_enabled: false,
    automation_tag: '',
    regions: ['ap-guangzhou'],
    site: 'china',
    endpoint: '127.0.0.1:8900',
    endpoint_scheme: 'http',
    currency: 'CNY',
    status: 'pending',
    last_error: '',
    last_error_at: null,
    sync,
    created_at: '2026-11-30T10:00:00Z',
    ...overrides,
  };
}

const emptySummary = EMPTY_SUMMARY.body as { totals: object };
const SUMMARY_WITH_COSTS = {
  body: {
    ...emptySummary,
    totals: {
      ...emptySummary.totals,
      instance_count: 3,
      cost: '1234.50',
      gpu_hours: '96.0000',
      idle_cost: '210.00',
    },
  },
};

describe('sign-up', () => {
  it('creates the account and tells where the confirmation link went; resends it on request', async () => {
    const server = mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/signup': (call) => ({
        status: 201,
        body: { email: (call.body as { email: string }).email.toLowerCase(), message: 'We sent a confirmation link to dana@example.test.' },
      }),
      'POST /api/v1/auth/verify-email/resend': { status: 202, body: { email: 'dana@example.test', message: 'Sent again to dana@example.test.' } },
    });
    const user = userEvent.setup();
    renderAppAt('/signup');

    await user.type(await screen.findByLabelText('Your name'), 'Dana');
    await user.type(screen.getByLabelText('Work e-mail'), 'Dana@Example.test');
    await user.type(screen.getByLabelText('Password'), 'correct-horse-battery-9');
    await user.type(screen.getByLabelText('Organization name'), 'Vision Lab');
    await user.clear(screen.getByLabelText('Timezone'));
    await user.type(screen.getByLabelText('Timezone'), 'Europe/Berlin');
    await user.selectOptions(screen.getByLabelText('Currency'), 'USD');
    await user.click(screen.getByRole('button', { name: 'Create account' }));

    const inbox = await screen.findByTestId('signup-check-inbox');
    expect(inbox.textContent).toContain('We sent a confirmation link to dana@example.test.');
    expect(server.find('POST', '/api/v1/auth/signup')[0]!.body).toEqual({
      name: 'Dana',
      email: 'Dana@Example.test',
      password: 'correct-horse-battery-9',
      organization_name: 'Vision Lab',
      timezone: 'Europe/Berlin',
      currency: 'USD',
      language: 'en',
    });

    await user.click(within(inbox).getByRole('button', { name: 'Send the link again' }));
    expect(await screen.findByText('Sent again to dana@example.test.')).toBeTruthy();
    expect(server.find('POST', '/api/v1/auth/verify-email/resend')[0]!.body).toEqual({ email: 'dana@example.test' });
  });

  it('shows the API errors next to the fields they name', async () => {
    mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/signup': invalid({
        email: ['A user with this e-mail address already exists.'],
        password: ['This password is too common.'],
      }),
    });
    const user = userEvent.setup();
    renderAppAt('/signup');

    await user.type(await screen.findByLabelText('Your name'), 'Dana');
    await user.type(screen.getByLabelText('Work e-mail'), 'taken@example.test');
    await user.type(screen.getByLabelText('Password'), 'password');
    await user.type(screen.getByLabelText('Organization name'), 'Lab');
    await user.click(screen.getByRole('button', { name: 'Create account' }));

    const email = screen.getByLabelText('Work e-mail');
    await waitFor(() => expect(email.getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByText('A user with this e-mail address already exists.')).toBeTruthy();
    expect(screen.getByText('This password is too common.')).toBeTruthy();
    expect(screen.getByLabelText('Password').getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByTestId('signup-check-inbox')).toBeNull();
  });

  it('is linked from the sign-in page', async () => {
    mockApi({ 'GET /api/v1/me': NOT_AUTHENTICATED });
    const user = userEvent.setup();
    renderAppAt('/login');

    await user.click(await screen.findByRole('link', { name: 'Create an account' }));

    expect(await screen.findByRole('heading', { name: 'Create your account' })).toBeTruthy();
  });
});

describe('signing in before confirming', () => {
  it('says the address is unconfirmed and sends the link again', async () => {
    const server = mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/login': {
        status: 403,
        body: {
          error: { code: 'email_not_verified', message: 'Confirm your e-mail address first: open the link we sent to dana@example.test.', fields: {} },
        },
      },
      'POST /api/v1/auth/verify-email/resend': { status: 202, body: { email: 'dana@example.test', message: 'We sent a confirmation link to dana@example.test.' } },
    });
    const user = userEvent.setup();
    renderAppAt('/login');

    await user.type(await screen.findByLabelText('E-mail'), 'dana@example.test');
    await user.type(screen.getByLabelText('Password'), 'correct-horse-battery-9');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    const alert = await screen.findByTestId('login-not-verified');
    expect(alert.textContent).toContain('Confirm your e-mail address first');
    await user.click(within(alert).getByRole('button', { name: 'Send the link again' }));
    await waitFor(() => expect(alert.textContent).toContain('We sent a confirmation link'));
    expect(server.find('POST', '/api/v1/auth/verify-email/resend')[0]!.body).toEqual({ email: 'dana@example.test' });
    expect(window.location.pathname).toBe('/login');
  });

  it('sends an owner without a cloud account to the first-run page after signing in', async () => {
    mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/login': { body: makeMe() },
      'GET /api/v1/cloud-accounts': { body: emptyPage },
    });
    const user = userEvent.setup();
    renderAppAt('/login');

    await user.type(await screen.findByLabelText('E-mail'), 'lin@acme.example');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { name: 'Connect a Tencent Cloud account' })).toBeTruthy();
    expect(window.location.pathname).toBe('/connect');
  });
});

describe('e-mail confirmation link', () => {
  it('confirms once, signs in and opens the first-run page', async () => {
    const server = mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/verify-email': { body: makeMe() },
      'GET /api/v1/cloud-accounts': { body: emptyPage },
    });
    renderAppAt('/verify-email?token=signed-token');

    expect(await screen.findByRole('heading', { name: 'Connect a Tencent Cloud account' })).toBeTruthy();
    expect(window.location.pathname).toBe('/connect');
    expect(server.find('POST', '/api/v1/auth/verify-email').map((c) => c.body)).toEqual([{ token: 'signed-token' }]);
  });

  it('stays signed in when the first-load session check answers after the link signed in', async () => {
    // The page asks /me and opens the link at once; /me (sent without a session) answers last.
    let answerMe: () => void = () => undefined;
    const meAnswered = new Promise<void>((resolve) => {
      answerMe = resolve;
    });
    let verified = false;
    mockApi({
      'GET /api/v1/me': async () => {
        if (verified) return { body: makeMe() };
        await meAnswered;
        return NOT_AUTHENTICATED;
      },
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/verify-email': () => {
        verified = true;
        return { body: makeMe() };
      },
      'GET /api/v1/cloud-accounts': { body: emptyPage },
    });
    renderAppAt('/verify-email?token=signed-token');

    expect(await screen.findByRole('heading', { name: 'Connect a Tencent Cloud account' })).toBeTruthy();
    answerMe();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(window.location.pathname).toBe('/connect');
    expect(screen.getByRole('heading', { name: 'Connect a Tencent Cloud account', level: 1 })).toBeTruthy();
  });

  it('shows why a link does not work', async () => {
    mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/verify-email': invalid({ token: ['This link has expired. Sign in to have a new one sent.'] }),
    });
    renderAppAt('/verify-email?token=old');

    expect((await screen.findByTestId('verify-error')).textContent).toBe(
      'This link has expired. Sign in to have a new one sent.',
    );
    expect(screen.getByRole('link', { name: 'Go to sign in' })).toBeTruthy();
  });
});

describe('first run: connect a cloud account', () => {
  it('tests the connection without saving, shows the plain error, then connects', async () => {
    let created: CloudAccount | null = null;
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/cloud-accounts': { body: emptyPage },
      'POST /api/v1/cloud-accounts/test-connection': (call) =>
        (call.body as { secret_key: string }).secret_key === 'right-key'
          ? { body: { ok: true, code: '', message: 'Connected: the key reads CVM in 1 region(s) and the billing API.', checked: [] } }
          : { body: { ok: false, code: 'AuthFailure.SecretIdNotFound', message: 'Tencent Cloud rejected the SecretId/SecretKey of this account.', checked: [] } },
      'POST /api/v1/cloud-accounts': () => {
        created = account(syncOf({}));
        return { status: 201, body: created };
      },
      'GET /api/v1/cloud-accounts/5': () => ({ body: created }),
      'GET /api/v1/analysis/summary': EMPTY_SUMMARY,
    });
    const user = userEvent.setup();
    renderAppAt('/connect');

    const form = await screen.findByRole('form', { name: 'Connect a Tencent Cloud account' });
    await user.type(within(form).getByLabelText('Name'), 'Simulated');
    await user.type(within(form).getByLabelText('SecretId'), ' AKIDsimulated ');
    await user.type(within(form).getByLabelText('SecretKey'), 'wrong-key');
    await user.click(within(form).getByRole('checkbox', { name: /ap-guangzhou/ }));
    await user.click(within(form).getByRole('button', { name: 'Test connection' }));

    const failed = await screen.findByTestId('connection-test-result');
    expect(failed.textContent).toBe('Connection failed: Tencent Cloud rejected the SecretId/SecretKey of this account.');
    expect(server.find('POST', '/api/v1/cloud-accounts')).toHaveLength(0);
    expect(server.find('POST', '/api/v1/cloud-accounts/test-connection')[0]!.body).toEqual({
      secret_id: 'AKIDsimulated',
      secret_key: 'wrong-key',
      regions: ['ap-guangzhou'],
      site: 'china',
      endpoint: '',
      endpoint_scheme: 'https',
    });

    await user.clear(within(form).getByLabelText('SecretKey'));
    expect(screen.queryByTestId('connection-test-result')).toBeNull();
    await user.type(within(form).getByLabelText('SecretKey'), 'right-key');
    await user.click(within(form).getByRole('button', { name: 'Test connection' }));
    expect((await screen.findByTestId('connection-test-result')).textContent).toContain('Connected');

    await user.click(within(form).getByRole('button', { name: 'Connect and start reading' }));

    expect(await screen.findByTestId('backfill')).toBeTruthy();
    expect(server.find('POST', '/api/v1/cloud-accounts')).toHaveLength(1);
    expect(screen.getByTestId('progress-inventory').getAttribute('data-phase')).toBe('waiting');
    expect(screen.getByTestId('first-costs-waiting')).toBeTruthy();
  });

  it('polls the backfill, shows each kind with its progress bar, then the first costs', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let step = 0;
    const steps = [
      syncOf({ inventory: run({}) }),
      syncOf({
        inventory: run({ state: 'done', summary: '12 instances (12 new, 0 terminated)' }),
        prices: run({ state: 'retrying', summary: 'Tencent Cloud is temporarily unavailable (RequestLimitExceeded).' }),
      }),
      syncOf({
        inventory: run({ state: 'done', summary: '12 instances (12 new, 0 terminated)' }),
        prices: run({ state: 'done', summary: '40 prices' }),
        metrics: run({ done: 30, planned: 120 }),
        bills: run({ done: 1, planned: 2 }),
      }),
      syncOf({
        inventory: run({ state: 'done', summary: '12 instances (12 new, 0 terminated)' }),
        prices: run({ state: 'done', summary: '40 prices' }),
        metrics: run({ state: 'done', done: 120, planned: 120, summary: '1,000 points in 120 GetMonitorData requests' }),
        bills: run({ state: 'done', summary: '2026-11: 3,000 lines' }),
        balance: run({ state: 'done', summary: 'balance' }),
      }),
    ];
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/cloud-accounts': () => ({ body: { ...emptyPage, count: 1, results: [account(steps[0]!)] } }),
      'GET /api/v1/cloud-accounts/5': () => ({ body: account(steps[Math.min(step, 3)]!, { status: step >= 3 ? 'ok' : 'pending' }) }),
      'GET /api/v1/analysis/summary': () => (step >= 3 ? SUMMARY_WITH_COSTS : EMPTY_SUMMARY),
    });
    const { unmount } = renderAppAt('/connect');

    const inventory = await screen.findByTestId('progress-inventory');
    await waitFor(() => expect(inventory.getAttribute('data-phase')).toBe('running'));
    // Instances do not say how many are left: an indeterminate bar (no value).
    expect(within(inventory).getByRole('progressbar').hasAttribute('value')).toBe(false);

    step = 1;
    act(() => vi.advanceTimersByTime(2_000));
    const prices = screen.getByTestId('progress-prices');
    await waitFor(() => expect(prices.getAttribute('data-phase')).toBe('retrying'));
    expect(prices.textContent).toContain('Tencent Cloud is temporarily unavailable (RequestLimitExceeded). Trying again shortly.');

    step = 2;
    act(() => vi.advanceTimersByTime(2_000));
    const metrics = screen.getByTestId('progress-metrics');
    await waitFor(() => expect(metrics.getAttribute('data-phase')).toBe('running'));
    expect(within(metrics).getByRole('progressbar').getAttribute('value')).toBe('25');
    expect(metrics.textContent).toContain('25% (30 of 120 requests)');
    expect(screen.getByTestId('progress-inventory').textContent).toContain('12 instances');
    // Bills count months (one month of two read), not requests.
    const bills = screen.getByTestId('progress-bills');
    expect(bills.getAttribute('data-phase')).toBe('running');
    expect(within(bills).getByRole('progressbar').getAttribute('value')).toBe('50');
    expect(bills.textContent).toContain('50% (1 of 2 months)');

    step = 3;
    act(() => vi.advanceTimersByTime(5_000));
    await waitFor(() => expect(screen.getByTestId('progress-bills').textContent).toContain('2026-11: 3,000 lines'));
    expect(await screen.findByRole('heading', { name: 'History read' })).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('first-cost').textContent).toContain('1,234.50'));
    expect(server.find('GET', '/api/v1/cloud-accounts/5').length).toBeGreaterThanOrEqual(3);

    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('labels the first cost a catalog estimate until the bills are in, then says it is from the bills', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const withSources = (cost_sources: { bills: number; list_price: number; unpriced: number }) => ({
      body: { ...SUMMARY_WITH_COSTS.body, totals: { ...SUMMARY_WITH_COSTS.body.totals, cost_sources } },
    });
    let billsIn = false;
    const running = syncOf({ inventory: run({ state: 'done' }), prices: run({ state: 'done' }), bills: run({ done: 0, planned: 2 }) });
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/cloud-accounts': { body: { ...emptyPage, count: 1, results: [account(running)] } },
      'GET /api/v1/cloud-accounts/5': () => ({ body: account(running) }),
      'GET /api/v1/analysis/summary': () =>
        billsIn ? withSources({ bills: 3, list_price: 0, unpriced: 0 }) : withSources({ bills: 0, list_price: 3, unpriced: 0 }),
    });
    const { unmount } = renderAppAt('/connect');

    const basis = await screen.findByTestId('first-cost-basis');
    expect(basis.getAttribute('data-basis')).toBe('catalog');
    expect(within(screen.getByTestId('first-cost')).getByText('Estimated from the price catalog until your bills are in.')).toBeTruthy();

    billsIn = true;
    act(() => vi.advanceTimersByTime(5_000));
    await waitFor(() => expect(screen.getByTestId('first-cost-basis').getAttribute('data-basis')).toBe('bills'));
    expect(screen.getByTestId('first-cost-basis').textContent).toBe('From your bills.');
    unmount();
  });

  it('says in Chinese how many instances of a partly billed figure are estimated', async () => {
    const partly = {
      body: { ...SUMMARY_WITH_COSTS.body, totals: { ...SUMMARY_WITH_COSTS.body.totals, cost_sources: { bills: 2, list_price: 1, unpriced: 1 } } },
    };
    mockApi({
      'GET /api/v1/me': { body: makeMe({ language: 'zh-hans' }) },
      'GET /api/v1/cloud-accounts': { body: { ...emptyPage, count: 1, results: [account(syncOf({}))] } },
      'GET /api/v1/cloud-accounts/5': { body: account(syncOf({})) },
      'GET /api/v1/analysis/summary': partly,
    });
    renderAppAt('/connect');

    const basis = await screen.findByTestId('first-cost-basis');
    expect(basis.getAttribute('data-basis')).toBe('mixed');
    expect(basis.textContent).toBe('3 台实例中有 1 台在账单到达前按价格目录估算，其余来自您的账单。 1 台实例尚无账单也无目录价格，未计入。');
  });

  it('says why instances are still at their catalog price once every bill is in', async () => {
    const done = syncOf({
      inventory: run({ state: 'done' }),
      prices: run({ state: 'done' }),
      metrics: run({ state: 'done' }),
      bills: run({ state: 'done' }),
      balance: run({ state: 'done' }),
    });
    const partly = {
      body: { ...SUMMARY_WITH_COSTS.body, totals: { ...SUMMARY_WITH_COSTS.body.totals, cost_sources: { bills: 29, list_price: 6, unpriced: 0 } } },
    };
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/cloud-accounts': { body: { ...emptyPage, count: 1, results: [account(done, { status: 'ok' })] } },
      'GET /api/v1/cloud-accounts/5': { body: account(done, { status: 'ok' }) },
      'GET /api/v1/analysis/summary': partly,
    });
    renderAppAt('/connect');

    expect(await screen.findByRole('heading', { name: 'History read' })).toBeTruthy();
    await waitFor(() =>
      expect(screen.getByTestId('first-cost-basis').textContent).toBe(
        '6 of 35 instances estimated from the price catalog (no hourly bill lines, e.g. monthly subscriptions); the rest from your bills.',
      ),
    );
  });

  it('tells a viewer to ask an owner instead of showing the form', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe({ organization: { ...makeMe().organization!, role: 'viewer' } }) },
      'GET /api/v1/cloud-accounts': { body: emptyPage },
      'GET /api/v1/analysis/summary': EMPTY_SUMMARY,
    });
    renderAppAt('/connect');

    expect(await screen.findByText(/Only owners and admins can connect a cloud account/)).toBeTruthy();
    expect(screen.queryByRole('form')).toBeNull();
  });
});

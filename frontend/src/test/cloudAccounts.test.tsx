import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { BETA, CSRF, emptyPage, makeMe, mockApi } from './mockApi';
import type { CloudAccount, SyncStatus } from '../api/types';

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
const minutesAhead = (n: number) => new Date(Date.now() + n * 60_000).toISOString();

const PERMISSION_ERROR =
  'The key of this account is not allowed to call GetMonitorData. Grant it the CAM permission monitor:GetMonitorData ' +
  '(the QcloudCVMReadOnlyAccess, QcloudMonitorReadOnlyAccess and QcloudFinanceBillReadOnlyAccess policies cover every call GPU Ledger makes).';

function syncOf(overrides: Partial<Record<SyncStatus['kind'], Partial<SyncStatus>>> = {}): SyncStatus[] {
  return (['inventory', 'prices', 'metrics', 'bills', 'balance'] as const).map((kind) => ({
    kind,
    last_success_at: null,
    next_run_at: null,
    last_error: '',
    progress: null,
    ...overrides[kind],
  }));
}

function account(overrides: Partial<CloudAccount> = {}): CloudAccount {
  return {
    id: 1,
    name: 'Production',
    provider: 'tencent',
    secret_id: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
    has_write_credential: false,
    write_secret_id: '',
    automation_enabled: false,
    automation_tag: '',
    regions: ['ap-guangzhou', 'ap-shanghai'],
    site: 'china',
    endpoint: '',
    endpoint_scheme: 'https',
    currency: 'CNY',
    status: 'ok',
    last_error: '',
    last_error_at: null,
    sync: syncOf(),
    created_at: '2025-06-01T00:00:00Z',
    ...overrides,
  };
}

const page = (results: CloudAccount[]) => ({ ...emptyPage, count: results.length, results });

const invalid = (fields: Record<string, string[]>) => ({
  status: 400,
  body: { error: { code: 'invalid', message: 'Invalid input.', fields } },
});

afterEach(() => {
  vi.useRealTimers();
});

describe('settings: cloud accounts', () => {
  it('lists accounts with their status, the failing reason in words and when each part last synced', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/cloud-accounts': {
        body: page([
          account({
            sync: syncOf({
              inventory: { last_success_at: minutesAgo(5), next_run_at: minutesAhead(10) },
              prices: { last_success_at: minutesAgo(3 * 60) },
            }),
          }),
          account({
            id: 2,
            name: 'Research (Singapore)',
            site: 'intl',
            currency: 'USD',
            regions: ['ap-singapore'],
            endpoint: '127.0.0.1:8900',
            endpoint_scheme: 'http',
            status: 'failing',
            last_error: PERMISSION_ERROR,
            last_error_at: minutesAgo(20),
            sync: syncOf({ metrics: { last_error: PERMISSION_ERROR, next_run_at: minutesAgo(1) } }),
          }),
        ]),
      },
    });
    renderAppAt('/settings/cloud-accounts');

    const ok = await screen.findByRole('article', { name: 'Production' });
    expect(within(ok).getByTestId('account-status').textContent).toBe('OK');
    expect(ok.textContent).toContain('AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE');
    expect(ok.textContent).toContain('Guangzhou (ap-guangzhou), Shanghai (ap-shanghai)');
    expect(ok.textContent).toContain('Tencent Cloud (default)');
    const okSync = within(ok).getByRole('table', { name: 'Sync of Production' });
    const inventoryRow = within(okSync).getByText('Instances and tags').closest('tr')!;
    expect(inventoryRow.textContent).toContain('5 minutes ago');
    expect(inventoryRow.textContent).toContain('in 10 minutes');
    expect(within(okSync).getByText('Price catalog').closest('tr')!.textContent).toContain('3 hours ago');
    expect(within(okSync).getByText('Bills').closest('tr')!.textContent).toContain('Never');
    expect(within(ok).queryByRole('alert')).toBeNull();

    const failing = screen.getByRole('article', { name: 'Research (Singapore)' });
    const badge = within(failing).getByTestId('account-status');
    expect(badge.textContent).toBe('Failing');
    expect(badge.className).toContain('badge--danger');
    const reason = within(failing).getByTestId('account-error');
    expect(reason.textContent).toContain('Sync is failing (since 20 minutes ago):');
    expect(reason.textContent).toContain('Grant it the CAM permission monitor:GetMonitorData');
    expect(failing.textContent).toContain('http://127.0.0.1:8900');
    expect(failing.textContent).toContain('USD');
    const metricsRow = within(failing).getByText('Monitoring metrics').closest('tr')!;
    expect(metricsRow.textContent).toContain('Due now');
    expect(metricsRow.textContent).toContain('QcloudMonitorReadOnlyAccess');

    // The tab is reachable from the settings navigation.
    const tabs = within(screen.getByRole('navigation', { name: 'Settings sections' }));
    expect(tabs.getByRole('link', { name: 'Cloud accounts' }).getAttribute('aria-current')).toBe('page');
  });

  it('connects an account: shows field errors, then posts every field and never shows the SecretKey', async () => {
    let accounts: CloudAccount[] = [];
    let attempt = 0;
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/cloud-accounts': () => ({ body: page(accounts) }),
      'POST /api/v1/cloud-accounts': (call) => {
        attempt += 1;
        if (attempt === 1)
          return invalid({
            secret_id: ['This field may not be blank.'],
            regions: ['Unknown Tencent Cloud region(s): ap-atlantis.'],
            endpoint: ['Must be host:port, e.g. 127.0.0.1:8900 (no scheme, no path).'],
          });
        const body = call.body as Record<string, unknown>;
        const { secret_key: _secret, ...visible } = body;
        const created = account({ ...(visible as Partial<CloudAccount>), id: 5, status: 'pending', currency: 'USD' });
        accounts = [created];
        return { status: 201, body: created };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/cloud-accounts');

    // No account yet: the connect form is open straight away.
    const form = await screen.findByRole('form', { name: 'Connect Tencent Cloud account' });
    expect(screen.getByTestId('no-cloud-accounts').textContent).toContain('No cloud account connected yet');
    const f = within(form);
    const secretKey = f.getByLabelText('SecretKey') as HTMLInputElement;
    expect(secretKey.type).toBe('password');
    expect(f.getAllByRole('checkbox')).toHaveLength(18);

    await user.type(f.getByLabelText('Name'), 'Research');
    await user.type(secretKey, 'kSec-7Hq2mP9x');
    await user.click(f.getByRole('checkbox', { name: /ap-singapore/ }));
    await user.selectOptions(f.getByLabelText('Site'), 'intl');
    expect(f.queryByLabelText('Endpoint override (host:port)')).toBeNull();
    await user.click(f.getByRole('button', { name: /Advanced/ }));
    expect(f.getByRole('button', { name: /Advanced/ }).getAttribute('aria-expanded')).toBe('true');
    await user.type(f.getByLabelText('Endpoint override (host:port)'), 'http://sim:8900');
    await user.click(f.getByRole('button', { name: 'Connect account' }));

    expect(await f.findByText('This field may not be blank.')).toBeTruthy();
    expect(f.getByLabelText('SecretId').getAttribute('aria-invalid')).toBe('true');
    expect(f.getByText('Unknown Tencent Cloud region(s): ap-atlantis.')).toBeTruthy();
    expect(f.getByText('Must be host:port, e.g. 127.0.0.1:8900 (no scheme, no path).')).toBeTruthy();
    expect(f.getByLabelText('Endpoint override (host:port)').getAttribute('aria-invalid')).toBe('true');

    await user.type(f.getByLabelText('SecretId'), 'AKIDres01');
    await user.clear(f.getByLabelText('Endpoint override (host:port)'));
    await user.type(f.getByLabelText('Endpoint override (host:port)'), '127.0.0.1:8900');
    await user.selectOptions(f.getByLabelText('Scheme'), 'http');
    await user.click(f.getByRole('checkbox', { name: /ap-guangzhou/ }));
    await user.click(f.getByRole('button', { name: 'Connect account' }));

    expect(await screen.findByText(/Connected “Research”/)).toBeTruthy();
    const posts = server.find('POST', '/api/v1/cloud-accounts');
    expect(posts).toHaveLength(2);
    expect(posts[1]!.body).toEqual({
      name: 'Research',
      secret_id: 'AKIDres01',
      secret_key: 'kSec-7Hq2mP9x',
      regions: ['ap-guangzhou', 'ap-singapore'],
      site: 'intl',
      endpoint: '127.0.0.1:8900',
      endpoint_scheme: 'http',
    });
    expect(posts[1]!.headers['x-csrftoken']).toBe('csrf-from-endpoint');

    const card = await screen.findByRole('article', { name: 'Research' });
    expect(within(card).getByTestId('account-status').textContent).toBe('Not synced yet');
    expect(screen.queryByRole('form', { name: 'Connect Tencent Cloud account' })).toBeNull();
    expect(document.body.innerHTML).not.toContain('kSec-7Hq2mP9x');
  }, 15_000);

  it('edits an account: sends only what changed and keeps the SecretKey unless it is replaced', async () => {
    let current = account();
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/cloud-accounts': () => ({ body: page([current]) }),
      'PATCH /api/v1/cloud-accounts/1': (call) => {
        const { secret_key: _secret, ...changes } = call.body as Record<string, unknown>;
        current = { ...current, ...(changes as Partial<CloudAccount>) };
        return { body: current };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/cloud-accounts');

    await user.click(await screen.findByRole('button', { name: 'Edit Production' }));
    let form = within(screen.getByRole('form', { name: 'Edit Production' }));
    const replace = form.getByLabelText('Replace SecretKey') as HTMLInputElement;
    expect(replace.type).toBe('password');
    expect(replace.value).toBe('');
    expect((form.getByLabelText('SecretId') as HTMLInputElement).value).toBe('AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE');
    expect((form.getByRole('checkbox', { name: /ap-shanghai/ }) as HTMLInputElement).checked).toBe(true);

    await user.click(form.getByRole('checkbox', { name: /ap-shanghai/ }));
    await user.click(form.getByRole('checkbox', { name: /ap-beijing/ }));
    await user.click(form.getByRole('button', { name: 'Save changes' }));

    expect(await screen.findByText('Saved “Production”.')).toBeTruthy();
    const patches = server.find('PATCH', '/api/v1/cloud-accounts/1');
    expect(patches[0]!.body).toEqual({ regions: ['ap-guangzhou', 'ap-beijing'] });
    const card = screen.getByRole('article', { name: 'Production' });
    expect(card.textContent).toContain('Guangzhou (ap-guangzhou), Beijing (ap-beijing)');

    await user.click(screen.getByRole('button', { name: 'Edit Production' }));
    form = within(screen.getByRole('form', { name: 'Edit Production' }));
    await user.type(form.getByLabelText('Replace SecretKey'), 'rotatedKey987');
    await user.click(form.getByRole('button', { name: 'Save changes' }));

    await waitFor(() => expect(server.find('PATCH', '/api/v1/cloud-accounts/1')).toHaveLength(2));
    expect(server.find('PATCH', '/api/v1/cloud-accounts/1')[1]!.body).toEqual({ secret_key: 'rotatedKey987' });
    expect(await screen.findByText('Saved “Production”.')).toBeTruthy();
    expect(document.body.innerHTML).not.toContain('rotatedKey987');
  }, 15_000);

  it('starts a sync with "Sync now"', async () => {
    let synced = false;
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/cloud-accounts': () => ({
        body: page([account({ sync: syncOf({ bills: synced ? { next_run_at: minutesAgo(0) } : { next_run_at: minutesAhead(120) } }) })]),
      }),
      'POST /api/v1/cloud-accounts/1/sync': () => {
        synced = true;
        return { status: 202 };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/cloud-accounts');

    const card = await screen.findByRole('article', { name: 'Production' });
    expect(within(card).getByText('Bills').closest('tr')!.textContent).toContain('in 2 hours');
    await user.click(within(card).getByRole('button', { name: 'Sync now' }));

    expect(await screen.findByText(/Sync of “Production” started/)).toBeTruthy();
    expect(server.find('POST', '/api/v1/cloud-accounts/1/sync')).toHaveLength(1);
    await waitFor(() => expect(within(card).getByText('Bills').closest('tr')!.textContent).toContain('Due now'));
  });

  it('polls every 10 s while an account is pending, stops when it is not, and stops on leaving', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let status: CloudAccount['status'] = 'pending';
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/cloud-accounts': () => ({ body: page([account({ status })]) }),
    });
    const { unmount } = renderAppAt('/settings/cloud-accounts');
    const gets = () => server.find('GET', '/api/v1/cloud-accounts').length;

    expect((await screen.findByTestId('account-status')).textContent).toBe('Not synced yet');
    expect(gets()).toBe(1);

    act(() => vi.advanceTimersByTime(9_000));
    expect(gets()).toBe(1);
    act(() => vi.advanceTimersByTime(1_000));
    await waitFor(() => expect(gets()).toBe(2));

    status = 'ok';
    act(() => vi.advanceTimersByTime(10_000));
    await waitFor(() => expect(screen.getByTestId('account-status').textContent).toBe('OK'));
    // React runs the effect that clears the poll after it paints "OK"; on a busy machine that
    // can still be pending here, so let it run before moving the clock (else the old interval
    // fires once more, which no browser would see: its clock does not jump 25 s at once).
    await act(async () => {});
    expect(gets()).toBe(3);

    act(() => vi.advanceTimersByTime(25_000));
    expect(gets()).toBe(3);

    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('clears the poll when the page is left while still pending', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/cloud-accounts': { body: page([account({ status: 'pending' })]) },
    });
    const { unmount } = renderAppAt('/settings/cloud-accounts');
    await screen.findByText('Not synced yet');
    expect(vi.getTimerCount()).toBeGreaterThan(0);

    unmount();
    expect(vi.getTimerCount()).toBe(0);
    act(() => vi.advanceTimersByTime(60_000));
    expect(server.find('GET', '/api/v1/cloud-accounts')).toHaveLength(1);
  });

  it('shows a viewer the settings notice instead of the accounts, with nothing to change', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe({ organization: BETA, organizations: [BETA] }) },
      'GET /api/v1/cloud-accounts': { body: page([account({ status: 'failing', last_error: PERMISSION_ERROR })]) },
      'GET /api/v1/members': { status: 403, body: { error: { code: 'permission_denied', message: 'Forbidden.', fields: {} } } },
    });
    renderAppAt('/settings/cloud-accounts');

    const notice = await screen.findByTestId('settings-managed');
    expect(notice.textContent).toContain("Settings are managed by your organization's owners and admins");
    await waitFor(() => expect(server.find('GET', '/api/v1/members')).toHaveLength(1));
    // An unreadable member list names no one and shows no error: the notice is just the text.
    expect(within(notice).queryByRole('list')).toBeNull();
    expect(screen.queryByText('Forbidden.')).toBeNull();
    expect(screen.queryByRole('article', { name: 'Production' })).toBeNull();
    expect(server.find('GET', '/api/v1/cloud-accounts')).toHaveLength(0);
    expect(screen.queryByRole('button', { name: 'Sync now' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Edit Production' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Connect Tencent Cloud account' })).toBeNull();
    expect(screen.queryByRole('form')).toBeNull();
  });

  it('opens the connect form from the button when accounts exist', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/cloud-accounts': { body: page([account()]) },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/cloud-accounts');

    await screen.findByRole('article', { name: 'Production' });
    expect(screen.queryByRole('form', { name: 'Connect Tencent Cloud account' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Connect Tencent Cloud account' }));
    const form = screen.getByRole('form', { name: 'Connect Tencent Cloud account' });
    await user.click(within(form).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('form', { name: 'Connect Tencent Cloud account' })).toBeNull();
  });
});

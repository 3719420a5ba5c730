import { afterEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { BETA, emptyPage, makeMe, mockApi } from './mockApi';
import type { AuditEntry } from '../api/types';
import { i18n } from '../i18n';

const ROLE_CHANGE: AuditEntry = {
  id: 31,
  // 01:30 UTC is 09:30 in Shanghai (Acme's timezone).
  at: '2026-11-02T01:30:00Z',
  action: 'member.role_changed',
  action_label: "Changed a member's role",
  actor: { type: 'user', id: 7, display: 'lin@acme.example' },
  target: { type: 'membership', id: '12', label: 'zhao@acme.example' },
  details: { changes: { role: { old: 'viewer', new: 'admin' } } },
  client_address: '203.0.113.7',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140',
};

const KEY_CHANGE: AuditEntry = {
  id: 30,
  at: '2026-11-01T12:00:00Z',
  action: 'cloud_account.credentials_changed',
  action_label: "Changed a cloud account's credentials",
  actor: { type: 'api_key', id: 4, display: 'deploy (glk_ab12cd34…)' },
  target: { type: 'cloud_account', id: '3', label: 'Training cloud' },
  details: { secrets_changed: ['secret_key'] },
  client_address: '198.51.100.2',
  user_agent: '',
};

const page = (results: AuditEntry[]) => ({ body: { ...emptyPage, count: results.length, results } });

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('settings: audit log', () => {
  it('lists who did what, when in the organization timezone and from where, with the details on demand', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/audit-log': page([ROLE_CHANGE, KEY_CHANGE]),
    });
    const user = userEvent.setup();
    renderAppAt('/settings/audit-log');

    const rows = await screen.findAllByTestId('audit-row', {}, { timeout: 5000 });
    expect(rows).toHaveLength(2);
    const first = rows[0]!;
    expect(first.textContent).toContain('lin@acme.example');
    expect(first.textContent).toContain("Changed a member's role");
    expect(first.textContent).toContain('zhao@acme.example');
    expect(first.textContent).toContain('Member');
    expect(first.textContent).toContain('203.0.113.7');
    expect(first.textContent).toMatch(/09:30/);
    // An API key is named as such; a changed secret says so, never a value.
    expect(rows[1]!.textContent).toContain('deploy (glk_ab12cd34…)');
    expect(rows[1]!.textContent).toContain('API key');
    await user.click(within(rows[1]!).getByText('Show'));
    expect(rows[1]!.textContent).toContain('secret_key');
    expect(rows[1]!.textContent).toContain('changed (the value is never recorded)');
    await user.click(within(first).getByText('Show'));
    expect(first.textContent).toContain('viewer → admin');
    expect(screen.getByRole('link', { name: 'Audit log' }).getAttribute('aria-current')).toBe('page');
  });

  it('filters by action, actor and days of the organization timezone', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/audit-log': (call) => (call.query.get('action') ? page([KEY_CHANGE]) : page([ROLE_CHANGE, KEY_CHANGE])),
    });
    const user = userEvent.setup();
    renderAppAt('/settings/audit-log');
    expect(await screen.findAllByTestId('audit-row')).toHaveLength(2);

    await user.selectOptions(screen.getByLabelText('Action'), 'cloud_account.credentials_changed');
    await user.type(screen.getByLabelText('Who'), ' deploy ');
    await user.type(screen.getByLabelText('From'), '2026-11-01');
    await user.type(screen.getByLabelText('To'), '2026-11-02');
    await user.click(screen.getByRole('button', { name: 'Filter' }));

    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(1));
    const query = server.find('GET', '/api/v1/audit-log').at(-1)!.query;
    expect(query.get('action')).toBe('cloud_account.credentials_changed');
    expect(query.get('actor')).toBe('deploy');
    // Shanghai's 1 November starts at 16:00 UTC the day before; "to" includes the whole 2 November.
    expect(query.get('since')).toBe('2026-10-31T16:00:00Z');
    expect(query.get('until')).toBe('2026-11-02T16:00:00Z');
    expect(query.get('page')).toBe('1');

    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(2));
  });

  it('says when nothing is recorded, and when no entry matches', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, 'GET /api/v1/audit-log': page([]) });
    const user = userEvent.setup();
    renderAppAt('/settings/audit-log');
    expect(await screen.findByText('Nothing recorded yet.')).toBeTruthy();
    await user.type(screen.getByLabelText('Who'), 'nobody');
    await user.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText('No entries match these filters.')).toBeTruthy();
  });

  it('shows a load error with a retry', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/audit-log': () =>
        fail
          ? { status: 500, body: { error: { code: 'server_error', message: 'Something broke on our side.', fields: {} } } }
          : page([ROLE_CHANGE]),
    });
    const user = userEvent.setup();
    renderAppAt('/settings/audit-log');
    expect(await screen.findByText('Something broke on our side.')).toBeTruthy();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findAllByTestId('audit-row')).toHaveLength(1);
  });

  it('is in Chinese for a person who reads Chinese', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe({ language: 'zh-hans' }) },
      'GET /api/v1/audit-log': page([ROLE_CHANGE]),
    });
    renderAppAt('/settings/audit-log');
    const row = (await screen.findAllByTestId('audit-row'))[0]!;
    expect(row.textContent).toContain('修改成员角色');
    expect(row.textContent).toContain('成员');
    expect(screen.getByRole('link', { name: '审计日志' })).toBeTruthy();
  });

  it('is not offered to members who do not manage the organization', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe({ organization: BETA, organizations: [BETA] }) },
      'GET /api/v1/members': page([]),
    });
    renderAppAt('/settings/audit-log');
    expect(await screen.findByTestId('settings-managed')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Audit log' })).toBeNull();
    expect(server.find('GET', '/api/v1/audit-log')).toHaveLength(0);
  });
});

import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { BETA, CSRF, emptyPage, makeMe, mockApi, NOT_AUTHENTICATED } from './mockApi';
import type { ApiKey, Invitation, Member } from '../api/types';

const SECRET = 'glk_live_7Hq2mP9xVb4sT1nR8wK3';

describe('settings: API keys', () => {
  it('creates a key and shows its secret once, with a copy button and a warning', async () => {
    let keys: ApiKey[] = [];
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/api-keys': () => ({ body: { ...emptyPage, count: keys.length, results: keys } }),
      'POST /api/v1/api-keys': (call) => {
        const { name, scope } = call.body as { name: string; scope: 'read' | 'write' };
        const key: ApiKey = {
          id: 11,
          name,
          scope,
          prefix: 'glk_live_7Hq',
          created_at: '2025-06-01T08:00:00Z',
          last_used_at: null,
          revoked_at: null,
        };
        keys = [key];
        return { status: 201, body: { ...key, key: SECRET } };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/api-keys');

    expect(await screen.findByText('No API keys yet.')).toBeTruthy();
    await user.type(screen.getByLabelText('Name'), 'Finance export');
    await user.selectOptions(screen.getByLabelText('Scope'), 'write');
    await user.click(screen.getByRole('button', { name: 'Create key' }));

    const panel = await screen.findByTestId('new-key-secret');
    expect((within(panel).getByTestId('new-key-value') as HTMLInputElement).value).toBe(SECRET);
    expect(panel.textContent).toContain('It will not be shown again');
    expect(within(panel).getByRole('button', { name: 'Copy' })).toBeTruthy();
    expect(server.find('POST', '/api/v1/api-keys')[0]!.body).toEqual({ name: 'Finance export', scope: 'write' });

    // The list reloads and shows the prefix, never the secret.
    const row = (await screen.findByText('Finance export', { selector: 'td' })).closest('tr')!;
    expect(row.textContent).toContain('glk_live_7Hq…');
    expect(row.textContent).not.toContain(SECRET);

    await user.click(within(panel).getByRole('button', { name: 'Copy' }));
    expect(await within(panel).findByRole('button', { name: 'Copied' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'I have copied the key' }));
    expect(screen.queryByTestId('new-key-secret')).toBeNull();
    expect(document.body.innerHTML).not.toContain(SECRET);
  });

  it('shows field errors from the API next to the input', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/api-keys': { body: emptyPage },
      'POST /api/v1/api-keys': {
        status: 400,
        body: {
          error: { code: 'invalid', message: 'Please correct the errors below.', fields: { name: ['A key with this name exists.'] } },
        },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/api-keys');

    await user.type(await screen.findByLabelText('Name'), 'dup');
    await user.click(screen.getByRole('button', { name: 'Create key' }));

    expect(await screen.findByText('A key with this name exists.')).toBeTruthy();
    // The message is the input's description, so a screen reader reads it on reaching the field.
    const nameInput = screen.getByRole('textbox', { name: 'Name', description: 'A key with this name exists.' });
    expect(nameInput.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Please correct the errors below.')).toBeTruthy();
    expect(screen.queryByTestId('new-key-secret')).toBeNull();
  });

  it('revokes a key after confirmation', async () => {
    let revoked = false;
    const key: ApiKey = {
      id: 4,
      name: 'CI',
      scope: 'read',
      prefix: 'glk_abc',
      created_at: '2025-05-01T00:00:00Z',
      last_used_at: null,
      revoked_at: null,
    };
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/api-keys': () => ({
        body: { ...emptyPage, count: 1, results: [{ ...key, revoked_at: revoked ? '2025-06-02T00:00:00Z' : null }] },
      }),
      'DELETE /api/v1/api-keys/4': () => {
        revoked = true;
        return { status: 204 };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/api-keys');

    await user.click(await screen.findByRole('button', { name: 'Revoke CI' }));
    await user.click(screen.getByRole('button', { name: 'Yes, revoke' }));

    expect(await screen.findByText('Revoked')).toBeTruthy();
    expect(server.find('DELETE', '/api/v1/api-keys/4')).toHaveLength(1);
  });
});

describe('settings: members and invitations', () => {
  const members: Member[] = [
    { id: 1, user: { id: 7, email: 'lin@acme.example', name: 'Lin Wei' }, role: 'owner', created_at: '2025-01-01T00:00:00Z' },
    { id: 2, user: { id: 8, email: 'zhao@acme.example', name: 'Zhao Min' }, role: 'viewer', created_at: '2025-02-01T00:00:00Z' },
  ];

  it('lists members, changes a role and pages through', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/members': (call) => ({
        body: {
          count: 27,
          next: null,
          previous: null,
          results: call.query.get('page') === '2' ? [members[1]] : members,
        },
      }),
      'PATCH /api/v1/members/2': (call) => ({ body: { ...members[1], ...(call.body as object) } }),
    });
    const user = userEvent.setup();
    renderAppAt('/settings/members');

    const roleSelect = (await screen.findByLabelText('Role of zhao@acme.example')) as HTMLSelectElement;
    const tabs = within(screen.getByRole('navigation', { name: 'Settings sections' }));
    expect(tabs.getByRole('link', { name: 'Members' }).getAttribute('href')).toBe('/settings/members');
    expect(tabs.getByRole('link', { name: 'Members' }).getAttribute('aria-current')).toBe('page');
    expect(tabs.getByRole('link', { name: 'API keys' }).getAttribute('href')).toBe('/settings/api-keys');
    expect(roleSelect.value).toBe('viewer');
    await user.selectOptions(roleSelect, 'finance');

    expect(await screen.findByText('zhao@acme.example is now Finance.')).toBeTruthy();
    expect(server.find('PATCH', '/api/v1/members/2')[0]!.body).toEqual({ role: 'finance' });
    expect((screen.getByLabelText('Role of zhao@acme.example') as HTMLSelectElement).value).toBe('finance');

    expect(screen.getByText('Page 1 of 2')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Page 2 of 2')).toBeTruthy();
    const pages = server.find('GET', '/api/v1/members').map((c) => c.query.get('page'));
    expect(pages).toContain('2');
    expect(server.find('GET', '/api/v1/members')[0]!.query.get('page_size')).toBe('25');
  });

  it('opens the Members tab from /settings', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, 'GET /api/v1/members': { body: emptyPage } });
    renderAppAt('/settings');

    expect(await screen.findByText('No members.')).toBeTruthy();
    expect(window.location.pathname).toBe('/settings/members');
  });

  it('shows a viewer who manages settings instead of the tabs, with nothing to change', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe({ organization: BETA, organizations: [BETA] }) },
      'GET /api/v1/members': { body: { count: 2, next: null, previous: null, results: members } },
    });
    renderAppAt('/settings/members');

    const notice = await screen.findByTestId('settings-managed');
    expect(notice.textContent).toContain("Settings are managed by your organization's owners and admins");
    // The owners and admins by name (read from /members), not the other members.
    expect(await within(notice).findByText('Lin Wei (lin@acme.example), Owner')).toBeTruthy();
    expect(notice.textContent).not.toContain('zhao@acme.example');
    expect(screen.queryByRole('navigation', { name: 'Settings sections' })).toBeNull();
    expect(screen.queryByLabelText('Role of zhao@acme.example')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove' })).toBeNull();
    expect(within(screen.getByRole('main')).queryAllByRole('button')).toHaveLength(0);
  });

  it('shows a load error with a retry', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/members': () =>
        fail
          ? { status: 500, body: { error: { code: 'server_error', message: 'Something broke on our side.', fields: {} } } }
          : { body: { count: 2, next: null, previous: null, results: members } },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/members');

    expect(await screen.findByText('Something broke on our side.')).toBeTruthy();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('zhao@acme.example')).toBeTruthy();
  });

  it('invites by e-mail with a role and shows field errors', async () => {
    let attempt = 0;
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/auth/csrf': CSRF,
      'GET /api/v1/invitations': { body: emptyPage },
      'POST /api/v1/invitations': (call) => {
        attempt += 1;
        if (attempt === 1)
          return {
            status: 400,
            body: { error: { code: 'invalid', message: 'Invalid input.', fields: { email: ['Enter a valid e-mail address.'] } } },
          };
        return {
          status: 201,
          body: {
            id: 9,
            ...(call.body as object),
            invited_by: 'lin@acme.example',
            created_at: '2025-06-01T00:00:00Z',
            expires_at: '2099-06-08T00:00:00Z',
            accepted_at: null,
          },
        };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/invitations');

    await user.type(await screen.findByLabelText('E-mail'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));
    expect(await screen.findByText('Enter a valid e-mail address.')).toBeTruthy();

    await user.clear(screen.getByLabelText('E-mail'));
    await user.type(screen.getByLabelText('E-mail'), 'new@acme.example');
    await user.selectOptions(screen.getByLabelText('Role'), 'lead');
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));

    expect(await screen.findByText('Invitation sent to new@acme.example.')).toBeTruthy();
    expect(server.find('POST', '/api/v1/invitations')[1]!.body).toEqual({ email: 'new@acme.example', role: 'lead' });
    await waitFor(() => expect(server.find('GET', '/api/v1/invitations').length).toBeGreaterThanOrEqual(2));
  });

  it('lists invitations with who sent them and their state', async () => {
    const invitation = (overrides: Partial<Invitation>): Invitation => ({
      id: 1,
      email: 'zhao@acme.example',
      role: 'lead',
      invited_by: 'lin@acme.example',
      created_at: '2025-06-01T00:00:00Z',
      expires_at: '2099-06-08T00:00:00Z',
      accepted_at: null,
      sent_at: '2025-06-01T00:00:01Z',
      ...overrides,
    });
    const invitations = [
      invitation({}),
      // The inviter's account was deleted since: the API sends null.
      invitation({ id: 2, email: 'wu@acme.example', role: 'finance', invited_by: null, accepted_at: '2025-06-02T00:00:00Z' }),
    ];
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/invitations': { body: { count: 2, next: null, previous: null, results: invitations } },
    });
    renderAppAt('/settings/invitations');

    const pending = (await screen.findByText('zhao@acme.example')).closest('tr')!;
    expect(within(pending).getByText('Team lead')).toBeTruthy();
    expect(within(pending).getByText('lin@acme.example')).toBeTruthy();
    expect(within(pending).getByText('Pending')).toBeTruthy();
    const accepted = screen.getByText('wu@acme.example').closest('tr')!;
    expect(within(accepted).getByText('Finance')).toBeTruthy();
    expect(within(accepted).getByText('—')).toBeTruthy();
    expect(within(accepted).getByText('Accepted')).toBeTruthy();
  });

  it('sends the user to /login when the session has expired', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/invitations': NOT_AUTHENTICATED,
    });
    renderAppAt('/settings/invitations');

    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(window.location.pathname).toBe('/login');
  });
});

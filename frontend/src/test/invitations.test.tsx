import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { ACME, BETA, CSRF, makeMe, mockApi, NOT_AUTHENTICATED } from './mockApi';
import { safeRedirect } from '../redirect';

const ACCEPT = 'POST /api/v1/invitations/accept';
const ACCEPT_URL = '/invitations/accept?token=tok_9Qe2';
const ZHAO = makeMe({ id: 8, email: 'zhao@acme.example', name: 'Zhao Min', organization: ACME, organizations: [ACME] });

describe('accepting an invitation', () => {
  it('creates the account signed out, then opens the overview', async () => {
    const server = mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      [ACCEPT]: { body: ZHAO },
    });
    const user = userEvent.setup();
    renderAppAt(ACCEPT_URL);

    const password = (await screen.findByLabelText('Password')) as HTMLInputElement;
    expect(password.id).toBe('password');
    expect(password.type).toBe('password');
    await user.type(screen.getByLabelText('Your name (optional)'), 'Zhao Min');
    await user.type(password, 'a long passphrase 42');
    await user.click(screen.getByRole('button', { name: 'Accept invitation' }));

    expect((await screen.findByTestId('user-email')).textContent).toBe('zhao@acme.example');
    expect(window.location.pathname).toBe('/');
    const posts = server.find('POST', '/api/v1/invitations/accept');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({ token: 'tok_9Qe2', name: 'Zhao Min', password: 'a long passphrase 42', language: 'en' });
    expect(posts[0]!.headers['x-csrftoken']).toBe('csrf-from-endpoint');
  });

  it('shows the password and invitation errors from the API', async () => {
    let attempt = 0;
    mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      [ACCEPT]: () => {
        attempt += 1;
        return attempt === 1
          ? {
              status: 400,
              body: {
                error: {
                  code: 'invalid',
                  message: 'Invalid input.',
                  fields: { password: ['This password is too short. It must contain at least 10 characters.'] },
                },
              },
            }
          : {
              status: 400,
              body: {
                error: {
                  code: 'invalid',
                  message: 'This invitation is invalid, used or expired.',
                  fields: { token: ['This invitation was sent to zhao@acme.example.'] },
                },
              },
            };
      },
    });
    const user = userEvent.setup();
    renderAppAt(ACCEPT_URL);

    await user.type(await screen.findByLabelText('Password'), 'short');
    await user.click(screen.getByRole('button', { name: 'Accept invitation' }));

    const passwordError = await screen.findByText('This password is too short. It must contain at least 10 characters.');
    expect(passwordError.id).toBe('password-error');
    expect(screen.getByLabelText('Password').getAttribute('aria-invalid')).toBe('true');

    await user.click(screen.getByRole('button', { name: 'Accept invitation' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('This invitation is invalid, used or expired.');
    expect(alert.textContent).toContain('This invitation was sent to zhao@acme.example.');
    expect(screen.queryByText(/too short/)).toBeNull();
    expect(window.location.pathname).toBe('/invitations/accept');
  });

  it('asks an existing user to sign in, then accepts with just the token', async () => {
    let signedIn = false;
    const server = mockApi({
      'GET /api/v1/me': () => (signedIn ? { body: ZHAO } : NOT_AUTHENTICATED),
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/login': () => {
        signedIn = true;
        return { body: makeMe({ id: 8, email: 'zhao@acme.example', organization: BETA, organizations: [BETA] }) };
      },
      [ACCEPT]: () =>
        signedIn
          ? { body: ZHAO }
          : {
              status: 401,
              body: { error: { code: 'not_authenticated', message: 'Sign in as zhao@acme.example to accept.', fields: {} } },
            },
    });
    const user = userEvent.setup();
    renderAppAt(ACCEPT_URL);

    await user.type(await screen.findByLabelText('Password'), 'whatever I type');
    await user.click(screen.getByRole('button', { name: 'Accept invitation' }));

    const prompt = await screen.findByTestId('accept-sign-in');
    expect(prompt.textContent).toContain('Sign in as zhao@acme.example to accept.');
    const link = within(prompt).getByRole('link', { name: 'Sign in to accept' });
    expect(link.getAttribute('href')).toBe('/login?next=%2Finvitations%2Faccept%3Ftoken%3Dtok_9Qe2');

    await user.click(link);
    await user.type(await screen.findByLabelText('E-mail'), 'zhao@acme.example');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    // Back on the invitation, signed in: no password field, just the button.
    expect((await screen.findByTestId('accept-email')).textContent).toBe('zhao@acme.example');
    expect(`${window.location.pathname}${window.location.search}`).toBe(ACCEPT_URL);
    expect(screen.queryByLabelText('Password')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Accept invitation' }));

    expect(await screen.findByTestId('org-name')).toHaveProperty('textContent', 'Acme AI');
    expect(window.location.pathname).toBe('/');
    const posts = server.find('POST', '/api/v1/invitations/accept');
    expect(posts).toHaveLength(2);
    expect(posts[1]!.body).toEqual({ token: 'tok_9Qe2' });
  });

  it('posts only the token when already signed in', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe({ organization: BETA, organizations: [BETA] }) },
      'GET /api/v1/auth/csrf': CSRF,
      [ACCEPT]: { body: makeMe({ organization: ACME, organizations: [ACME, BETA] }) },
    });
    const user = userEvent.setup();
    renderAppAt(ACCEPT_URL);

    expect((await screen.findByTestId('accept-email')).textContent).toBe('lin@acme.example');
    expect(screen.queryByLabelText('Your name (optional)')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Accept invitation' }));

    expect((await screen.findByTestId('org-switcher')) as HTMLSelectElement).toHaveProperty('value', 'acme');
    expect(window.location.pathname).toBe('/');
    expect(server.find('POST', '/api/v1/invitations/accept')[0]!.body).toEqual({ token: 'tok_9Qe2' });
  });

  it('explains a link without a token instead of showing the form', async () => {
    const server = mockApi({ 'GET /api/v1/me': NOT_AUTHENTICATED });
    renderAppAt('/invitations/accept');

    expect((await screen.findByRole('alert')).textContent).toContain('This link has no invitation token');
    expect(screen.queryByRole('button', { name: 'Accept invitation' })).toBeNull();
    expect(server.find('POST', '/api/v1/invitations/accept')).toHaveLength(0);
  });
});

describe('sign-in ?next=', () => {
  const signIn = async () => {
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('E-mail'), 'lin@acme.example');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
  };
  const routes = () => ({
    'GET /api/v1/me': NOT_AUTHENTICATED,
    'GET /api/v1/auth/csrf': CSRF,
    'POST /api/v1/auth/login': { body: makeMe() },
    'GET /api/v1/members': { body: { count: 0, next: null, previous: null, results: [] } },
  });

  it('goes to a same-site path after signing in', async () => {
    mockApi(routes());
    renderAppAt('/login?next=%2Fsettings%2Fmembers%3Fx%3D1');
    await signIn();

    expect(await screen.findByText('No members.')).toBeTruthy();
    expect(`${window.location.pathname}${window.location.search}`).toBe('/settings/members?x=1');
  });

  it('ignores another origin and goes to the overview', async () => {
    mockApi(routes());
    const origin = window.location.origin;
    renderAppAt('/login?next=%2F%2Fevil.example%2Fsteal');
    await signIn();

    expect(await screen.findByTestId('user-email')).toBeTruthy();
    expect(window.location.pathname).toBe('/');
    expect(window.location.origin).toBe(origin);
  });

  it('accepts only local paths', () => {
    expect(safeRedirect('/instances?region=ap-guangzhou#top')).toBe('/instances?region=ap-guangzhou#top');
    expect(safeRedirect('/invitations/accept?token=abc')).toBe('/invitations/accept?token=abc');
    for (const bad of [
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/\t/evil.example',
      'instances',
      '/login',
      '/login?next=/x',
      '',
      null,
      undefined,
    ]) {
      expect(safeRedirect(bad), String(bad)).toBeNull();
    }
  });
});

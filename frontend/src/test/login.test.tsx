import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { CSRF, emptyPage, makeMe, mockApi, NOT_AUTHENTICATED } from './mockApi';

describe('login page', () => {
  it('posts the credentials and shows the API error message', async () => {
    const server = mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/login': {
        status: 400,
        body: { error: { code: 'invalid_credentials', message: 'Incorrect e-mail or password.', fields: {} } },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/login');

    await user.type(await screen.findByLabelText('E-mail'), 'lin@acme.example');
    await user.type(screen.getByLabelText('Password'), 'wrong-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'Incorrect e-mail or password.');
    const posts = server.find('POST', '/api/v1/auth/login');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({ email: 'lin@acme.example', password: 'wrong-password' });
    expect(posts[0]!.headers['x-csrftoken']).toBe('csrf-from-endpoint');
    // Still on the login page with the form usable again.
    expect(window.location.pathname).toBe('/login');
    expect(screen.getByRole('button', { name: 'Sign in' })).toHaveProperty('disabled', false);
  });

  it('asks for both fields without calling the API', async () => {
    const server = mockApi({ 'GET /api/v1/me': NOT_AUTHENTICATED });
    const user = userEvent.setup();
    renderAppAt('/login');

    await user.click(await screen.findByRole('button', { name: 'Sign in' }));

    expect((await screen.findByRole('alert')).textContent).toBe('Enter your e-mail and password.');
    expect(server.find('POST', '/api/v1/auth/login')).toHaveLength(0);
  });

  it('shows the lock-out message on 429', async () => {
    mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/login': {
        status: 429,
        body: { error: { code: 'locked_out', message: 'Too many failed attempts. Try again in 15 minutes.', fields: {} } },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/login');

    await user.type(await screen.findByLabelText('E-mail'), 'lin@acme.example');
    await user.type(screen.getByLabelText('Password'), 'x');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect((await screen.findByRole('alert')).textContent).toContain('Too many failed attempts');
  });

  it('redirects an anonymous visitor to /login and back to the page after signing in', async () => {
    mockApi({
      'GET /api/v1/me': NOT_AUTHENTICATED,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/login': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      'GET /api/v1/budgets': { body: emptyPage },
      'GET /api/v1/usage/projects': {
        body: { start: '2026-11-01', end: '2026-11-07', timezone: 'Asia/Shanghai', currency: 'CNY', days: [], results: [] },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/projects');

    await user.type(await screen.findByLabelText('E-mail'), 'lin@acme.example');
    expect(window.location.pathname).toBe('/login');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { name: 'Projects' })).toBeTruthy();
    expect(await screen.findByTestId('projects-empty')).toBeTruthy();
    expect(window.location.pathname).toBe('/projects');
  });
});

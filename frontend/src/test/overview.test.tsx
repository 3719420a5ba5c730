import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { ACME, BETA, CSRF, EMPTY_OVERVIEW, makeMe, mockApi } from './mockApi';

describe('overview and app shell', () => {
  it('renders the e-mail and organization from /me, with an empty state and no chart', async () => {
    const server = mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...EMPTY_OVERVIEW });
    renderAppAt('/');

    expect((await screen.findByTestId('user-email')).textContent).toBe('lin@acme.example');
    expect(screen.getByTestId('org-name').textContent).toBe('Acme AI');
    expect(screen.getByTestId('org-timezone').textContent).toBe('Asia/Shanghai');
    expect(screen.getByTestId('org-currency').textContent).toBe('CNY');
    expect(screen.getByTestId('user-role').textContent).toBe('Owner');
    expect((await screen.findByTestId('overview-empty')).textContent).toContain('Connect a Tencent Cloud account');
    // The welcome is for an organization without a connected cloud account.
    expect(server.find('GET', '/api/v1/cloud-accounts')).toHaveLength(1);
    expect(screen.queryByTestId('overview-sections')).toBeNull();
    expect(
      within(screen.getByTestId('overview-empty')).getByRole('link', { name: 'Settings → Cloud accounts' }).getAttribute('href'),
    ).toBe('/settings/cloud-accounts');
    expect(screen.queryByTestId('chart')).toBeNull();
    // Shell: product name, navigation, sign out.
    expect(screen.getByText('GPU Ledger')).toBeTruthy();
    for (const label of ['Overview', 'Projects', 'Instances', 'Recommendations', 'Reports', 'Settings']) {
      expect(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: label })).toBeTruthy();
    }
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeTruthy();
  });

  it('shows the org name without a switcher when the user has one organization', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...EMPTY_OVERVIEW });
    renderAppAt('/');

    await screen.findByTestId('user-email');
    expect(screen.queryByTestId('org-switcher')).toBeNull();
    expect(within(document.querySelector('header.topbar') as HTMLElement).getByText('Acme AI')).toBeTruthy();
  });

  it('shows the switcher with 2+ organizations and posts the switch', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe({ organizations: [ACME, BETA] }) },
      ...EMPTY_OVERVIEW,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/me/organization': { body: makeMe({ organization: BETA, organizations: [ACME, BETA] }) },
    });
    const user = userEvent.setup();
    renderAppAt('/');

    const switcher = (await screen.findByTestId('org-switcher')) as HTMLSelectElement;
    expect(switcher.value).toBe('acme');
    expect(Array.from(switcher.options).map((o) => o.textContent)).toEqual(['Acme AI', 'Beta Labs']);

    await user.selectOptions(switcher, 'beta');

    await screen.findByText('Beta Labs', { selector: '[data-testid="org-name"]' });
    expect(screen.getByTestId('org-currency').textContent).toBe('USD');
    expect(screen.getByTestId('user-role').textContent).toBe('Viewer');
    const posts = server.find('POST', '/api/v1/me/organization');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({ organization: 'beta' });
    expect(posts[0]!.headers['x-csrftoken']).toBe('csrf-from-endpoint');
    expect((screen.getByTestId('org-switcher') as HTMLSelectElement).value).toBe('beta');
    // The new organization's figures are fetched.
    await waitFor(() => expect(server.find('GET', '/api/v1/cloud-accounts')).toHaveLength(2));
  });

  it('signs out and returns to the login page', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...EMPTY_OVERVIEW,
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/auth/logout': { status: 204 },
    });
    const user = userEvent.setup();
    renderAppAt('/');

    await user.click(await screen.findByRole('button', { name: 'Sign out' }));

    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(window.location.pathname).toBe('/login');
    expect(server.find('POST', '/api/v1/auth/logout')).toHaveLength(1);
  });

  it('says so on an address the app does not have', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() } });
    renderAppAt('/no-such-page');

    expect(await screen.findByText('Page not found')).toBeTruthy();
  });
});

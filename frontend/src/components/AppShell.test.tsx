import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from '../test/render';
import { ACME, makeMe, mockApi } from '../test/mockApi';
import { navFor } from './AppShell';

// The pages behind the shell fetch their own data; unmocked calls answer 404 and the page shows its error,
// which does not concern the shell.
function renderAs(role: typeof ACME.role, path = '/reports') {
  mockApi({ 'GET /api/v1/me': { body: makeMe({ organization: { ...ACME, role } }) } });
  return renderAppAt(path);
}

describe('app shell', () => {
  it('offers Settings to owners and admins only (the roles that write settings), not to leads, viewers and finance', () => {
    const links = (role: string) => navFor(role).map((item) => item.to);
    for (const role of ['owner', 'admin']) expect(links(role)).toContain('/settings');
    for (const role of ['lead', 'viewer', 'finance', null]) expect(links(role as string)).not.toContain('/settings');
    expect(links('viewer')).toEqual(['/', '/projects', '/instances', '/recommendations', '/reports']);
  });

  for (const role of ['viewer', 'lead'] as const) {
    it(`shows a ${role} the navigation without Settings`, async () => {
      renderAs(role);
      const nav = await screen.findByRole('navigation', { name: 'Main' });
      expect(within(nav).getByRole('link', { name: 'Reports' })).toBeTruthy();
      expect(within(nav).queryByRole('link', { name: 'Settings' })).toBeNull();
    });
  }

  it('folds the navigation behind a menu button that opens it and closes it after a choice', async () => {
    const user = userEvent.setup();
    renderAs('owner');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    const menu = screen.getByRole('button', { name: 'Menu' });
    expect(menu.getAttribute('aria-controls')).toBe(nav.id);
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(nav.className).not.toContain('sidenav--open');

    await user.click(menu);
    expect(menu.getAttribute('aria-expanded')).toBe('true');
    expect(nav.className).toContain('sidenav--open');

    await user.click(within(nav).getByRole('link', { name: 'Instances' }));
    expect(window.location.pathname).toBe('/instances');
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(nav.className).not.toContain('sidenav--open');
  });
});

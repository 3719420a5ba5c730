import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useAuth, useMe } from '../auth/AuthContext';
import { ApiError } from '../api/client';
import { roleLabel } from '../api/roles';
import { canManageOrg } from '../pages/settings/permissions';
import { LanguagePicker, ThemeToggle } from './Preferences';

const NAV = [
  { to: '/', label: 'nav.overview', end: true },
  { to: '/projects', label: 'nav.projects', end: false },
  { to: '/instances', label: 'nav.instances', end: false },
  { to: '/recommendations', label: 'nav.recommendations', end: false },
  { to: '/reports', label: 'nav.reports', end: false },
  { to: '/settings', label: 'nav.settings', end: false },
] as const;

/**
 * The navigation a role gets: only owners and admins write anything in Settings (members, keys, cloud
 * accounts, tag rules, budgets, alerts: the API's MANAGER_ROLES), so it is offered to them only.
 */
export function navFor(role: string | null | undefined) {
  return NAV.filter((item) => item.to !== '/settings' || canManageOrg(role));
}

export function OrgSwitcher() {
  const me = useMe();
  const { switchOrganization } = useAuth();
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const current = me.organization;

  if (me.organizations.length < 2) {
    return (
      <span className="org-name" title={current ? t('shell.roleTitle', { role: roleLabel(current.role) }) : undefined}>
        {current?.name ?? t('shell.noOrganization')}
      </span>
    );
  }

  const onChange = async (slug: string) => {
    if (!slug || slug === current?.slug) return;
    setBusy(true);
    setError(null);
    try {
      await switchOrganization(slug);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('shell.switchFailed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="org-switcher">
      <label className="visually-hidden" htmlFor="org-switcher">
        {t('shell.organization')}
      </label>
      <select
        id="org-switcher"
        data-testid="org-switcher"
        value={current?.slug ?? ''}
        disabled={busy}
        onChange={(e) => void onChange(e.target.value)}
      >
        {!current && (
          <option value="" disabled>
            {t('shell.chooseOrganization')}
          </option>
        )}
        {me.organizations.map((org) => (
          <option key={org.slug} value={org.slug}>
            {org.name}
          </option>
        ))}
      </select>
      {error && (
        <span className="org-switcher__error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

export function AppShell() {
  const me = useMe();
  const { logout } = useAuth();
  const { t } = useTranslation();
  const [signingOut, setSigningOut] = useState(false);
  // On a narrow screen (a tablet) the navigation folds behind a menu button; choosing a page folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  useEffect(() => setMenuOpen(false), [location.pathname]);

  const onSignOut = async () => {
    setSigningOut(true);
    try {
      await logout();
    } catch {
      // The session is cleared locally either way; the route guard sends us to /login.
    } finally {
      setSigningOut(false);
    }
  };

  return (
    <div className="shell">
      {/* The first Tab stop: straight past the top bar and the navigation to the page. */}
      <a className="skip-link visually-hidden-focusable" href="#main-content">
        {t('shell.skipToContent')}
      </a>
      <header className="topbar">
        <button
          type="button"
          className="btn btn--small btn--ghost topbar__menu"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span> {t('shellNav.menu')}
        </button>
        <div className="topbar__brand">
          <span className="logo" aria-hidden="true">
            ▦
          </span>
          <span className="product-name">GPU Ledger</span>
        </div>
        <div className="topbar__org">
          <OrgSwitcher />
        </div>
        <div className="topbar__prefs">
          <LanguagePicker />
          <ThemeToggle />
        </div>
        <div className="topbar__user">
          <span className="user-email" title={me.name || undefined}>
            {me.email}
          </span>
          <button type="button" className="btn btn--small btn--ghost" onClick={() => void onSignOut()} disabled={signingOut}>
            {t('shell.signOut')}
          </button>
        </div>
      </header>
      <div className="shell__body">
        <nav id="main-nav" className={`sidenav${menuOpen ? ' sidenav--open' : ''}`} aria-label={t('nav.main')}>
          <ul>
            {navFor(me.organization?.role).map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.end} className={({ isActive }) => (isActive ? 'active' : undefined)}>
                  {t(item.label)}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <main className="content" id="main-content" tabIndex={-1}>
          {/* Remount the page when the organization changes so every list reloads for the new tenant. */}
          <Outlet key={me.organization?.id ?? 'none'} />
        </main>
      </div>
    </div>
  );
}

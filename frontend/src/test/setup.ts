import { afterEach, vi } from 'vitest';
import { cleanup } from '@testing-library/react';
import { resetCsrfToken, setUnauthenticatedHandler } from '../api/client';
import { i18n } from '../i18n';
import { applyTheme } from '../theme';

export function clearCookies(): void {
  for (const part of document.cookie.split(';')) {
    const name = part.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  resetCsrfToken();
  setUnauthenticatedHandler(null);
  clearCookies();
  window.history.replaceState(null, '', '/');
  // One test's language or theme must not be the next one's.
  void i18n.changeLanguage('en');
  localStorage.clear();
  applyTheme('system');
});

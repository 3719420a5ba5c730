import { afterEach, vi } from 'vitest';
import { cleanup } from '@testing-library/react';
import { resetCsrfToken, setUnauthenticatedHandler } from '../api/client';

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
});

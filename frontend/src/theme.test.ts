import { afterEach, describe, expect, it } from 'vitest';
import { applyTheme, nextTheme, saveTheme, storedTheme } from './theme';

afterEach(() => {
  localStorage.clear();
  document.documentElement.removeAttribute('data-theme');
});

describe('theme', () => {
  it('follows the system until one is chosen, and keeps the choice in this browser', () => {
    expect(storedTheme()).toBe('system');
    saveTheme('dark');
    expect(document.documentElement.getAttribute('data-theme')).toBe('dark');
    expect(storedTheme()).toBe('dark');
    saveTheme('system');
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
    expect(storedTheme()).toBe('system');
  });

  it('ignores a stored value it does not know', () => {
    localStorage.setItem('gpu-ledger.theme', 'sepia');
    expect(storedTheme()).toBe('system');
    applyTheme(storedTheme());
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
  });

  it('cycles system, light, dark', () => {
    expect([nextTheme('system'), nextTheme('light'), nextTheme('dark')]).toEqual(['light', 'dark', 'system']);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyTheme, nextTheme, saveTheme, storedTheme } from './theme';

const FRONTEND = join(__dirname, '..');

/** What a reload does before the first paint: a fresh <html>, then public/theme-init.js from <head>. */
function reload(): void {
  document.documentElement.removeAttribute('data-theme');
  new Function(readFileSync(join(FRONTEND, 'public', 'theme-init.js'), 'utf8'))();
}

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

  it('applies the chosen theme again on a reload, before the app starts', () => {
    saveTheme('dark');
    reload();
    expect(document.documentElement.getAttribute('data-theme')).toBe('dark');
    saveTheme('light');
    reload();
    expect(document.documentElement.getAttribute('data-theme')).toBe('light');
    saveTheme('system');
    reload();
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
    localStorage.setItem('gpu-ledger.theme', 'sepia');
    reload();
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
  });

  it('loads that script from a file in <head>, before the app: no inline script for the CSP to refuse', () => {
    const html = readFileSync(join(FRONTEND, 'index.html'), 'utf8');
    const head = html.slice(0, html.indexOf('</head>'));
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => m[2]!.trim())).toEqual(['', '']);
    expect(head).toContain('<script src="/theme-init.js"></script>');
    expect(html.indexOf('theme-init.js')).toBeLessThan(html.indexOf('src/main.tsx'));
  });
});

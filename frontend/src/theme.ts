/**
 * Light or dark: the system's preference (prefers-color-scheme, in CSS) until a theme is chosen in the top
 * bar; the choice is kept in this browser only (localStorage) and set as data-theme on <html>.
 */
import { useCallback, useEffect, useState } from 'react';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

const STORAGE_KEY = 'gpu-ledger.theme';

export function storedTheme(): Theme {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return (THEMES as readonly string[]).includes(value ?? '') ? (value as Theme) : 'system';
  } catch {
    return 'system'; // Storage blocked (private mode, policy): the system's preference.
  }
}

export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  if (theme === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', theme);
}

export function saveTheme(theme: Theme): void {
  try {
    if (theme === 'system') localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, theme);
  } catch {
    // Not kept across visits when storage is blocked; it still applies now.
  }
  applyTheme(theme);
}

export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const choose = useCallback((next: Theme) => {
    saveTheme(next);
    setTheme(next);
  }, []);
  return [theme, choose];
}

/** The theme the next click of the toggle chooses: system → light → dark → system. */
export function nextTheme(theme: Theme): Theme {
  return THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!;
}

/** The theme in effect: the chosen one, or the system's when none is chosen. */
export function resolvedTheme(root: HTMLElement = document.documentElement): 'light' | 'dark' {
  const chosen = root.getAttribute('data-theme');
  if (chosen === 'light' || chosen === 'dark') return chosen;
  const prefersDark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  return prefersDark ? 'dark' : 'light';
}

/**
 * The theme in effect, re-rendering when the toggle or the system changes it: canvases (ECharts) cannot
 * follow CSS variables on their own.
 */
export function useResolvedTheme(): 'light' | 'dark' {
  const [theme, setTheme] = useState(resolvedTheme);
  useEffect(() => {
    const update = () => setTheme(resolvedTheme());
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
    media?.addEventListener?.('change', update);
    return () => {
      observer.disconnect();
      media?.removeEventListener?.('change', update);
    };
  }, []);
  return theme;
}

/**
 * The UI's languages: English and Simplified Chinese, both catalogs bundled (nothing is fetched).
 *
 * The browser's language is used until the signed-in person has a language stored on the server
 * (GET /api/v1/me `language`), which then wins on every browser; changing it in the top bar stores it.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language } from '../api/types';
import en from '../locales/en.json';
import zhCN from '../locales/zh-CN.json';

export const UI_LANGUAGES = ['en', 'zh-CN'] as const;
export type UiLanguage = (typeof UI_LANGUAGES)[number];

/** The language of a browser's preference list: Chinese for any zh-*, English otherwise. */
export function languageFromBrowser(preferred: readonly string[]): UiLanguage {
  for (const tag of preferred) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

/** The API spells Simplified Chinese `zh-hans` (Django's code); i18next and Intl use `zh-CN`. */
export function languageFromServer(language: Language | string | null | undefined): UiLanguage {
  return language === 'zh-hans' ? 'zh-CN' : 'en';
}

export function languageToServer(language: UiLanguage): Language {
  return language === 'zh-CN' ? 'zh-hans' : 'en';
}

function browserPreferences(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

export const i18n = i18next.createInstance();
void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } },
  lng: languageFromBrowser(browserPreferences()),
  fallbackLng: 'en',
  supportedLngs: [...UI_LANGUAGES],
  // React escapes what it renders; i18next escaping it again would show &amp; and friends.
  interpolation: { escapeValue: false },
  initAsync: false,
});

// Screen readers and the browser's font choice for CJK text follow <html lang>.
i18n.on('languageChanged', (language) => {
  if (typeof document !== 'undefined') document.documentElement.lang = language;
});
if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;

export function currentLanguage(): UiLanguage {
  return i18n.language === 'zh-CN' ? 'zh-CN' : 'en';
}

/**
 * The Intl locale numbers and dates are formatted with. English keeps day-month-year dates
 * ("5 Mar 2026"), which read unambiguously to the teams in Asia and Europe this is for.
 */
export function intlLocale(language: UiLanguage = currentLanguage()): string {
  return language === 'zh-CN' ? 'zh-CN' : 'en-GB';
}

/** Every catalog key a label map reads (the catalog test checks that both languages have them). */
export const LABEL_KEYS: string[] = [];

/**
 * A `Record<K, string>` whose values are read from the catalog (`prefix.key`) each time, so a label
 * map used across the code follows the current language without each caller translating.
 */
export function translatedLabels<K extends string>(keys: readonly K[], prefix: string): Record<K, string> {
  LABEL_KEYS.push(...keys.map((key) => `${prefix}.${key}`));
  const labels = {} as Record<K, string>;
  for (const key of keys) {
    Object.defineProperty(labels, key, { enumerable: true, get: () => i18n.t(`${prefix}.${key}`) });
  }
  return labels;
}

/** The top bar's language picker and theme toggle. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../auth/AuthContext';
import { toApiError } from '../hooks';
import { UI_LANGUAGES, type UiLanguage } from '../i18n';
import { nextTheme, useTheme } from '../theme';

/**
 * Switches the UI at once; signed in, the choice is stored on the server (PATCH /me) so it follows the
 * person to every browser. Without a session (sign-in page) it applies to this page only.
 */
export function LanguagePicker() {
  const { t, i18n } = useTranslation();
  const { me, setLanguage } = useAuth();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const onChange = async (language: UiLanguage) => {
    setError(null);
    const previous = i18n.language as UiLanguage;
    await i18n.changeLanguage(language);
    if (!me) return;
    setBusy(true);
    try {
      await setLanguage(language);
    } catch (err) {
      await i18n.changeLanguage(previous);
      setError(t('shell.languageFailed', { message: toApiError(err).message }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="language-picker">
      <label className="visually-hidden" htmlFor="language-picker">
        {t('shell.language')}
      </label>
      <select
        id="language-picker"
        data-testid="language-picker"
        value={i18n.language}
        disabled={busy}
        onChange={(e) => void onChange(e.target.value as UiLanguage)}
      >
        {UI_LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {t(`language.${language}`)}
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

const THEME_LABELS = { system: 'shell.themeSystem', light: 'shell.themeLight', dark: 'shell.themeDark' } as const;
const THEME_ICONS = { system: '◐', light: '☀', dark: '☾' } as const;

/** One button cycling system → light → dark; its name says the current theme. */
export function ThemeToggle() {
  const { t } = useTranslation();
  const [theme, setTheme] = useTheme();
  return (
    <button
      type="button"
      className="btn btn--small btn--ghost"
      data-testid="theme-toggle"
      data-theme-choice={theme}
      title={t(THEME_LABELS[theme])}
      onClick={() => setTheme(nextTheme(theme))}
    >
      <span aria-hidden="true">{THEME_ICONS[theme]}</span>
      <span className="visually-hidden">{t(THEME_LABELS[theme])}</span>
    </button>
  );
}

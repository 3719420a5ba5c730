import { afterEach, describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatRelative } from '../format';
import { formatDecimal, formatMoney, formatPercent } from '../money';
import { formatMinutes, PHASE_LABELS } from '../phases';
import { i18n, intlLocale, languageFromBrowser, languageFromServer, languageToServer } from './index';

afterEach(() => void i18n.changeLanguage('en'));

describe('choosing the language', () => {
  it('takes Chinese for any zh-* browser, English for en-*, and English otherwise', () => {
    expect(languageFromBrowser(['zh-CN', 'en'])).toBe('zh-CN');
    expect(languageFromBrowser(['zh-TW'])).toBe('zh-CN');
    expect(languageFromBrowser(['en-US', 'zh-CN'])).toBe('en');
    expect(languageFromBrowser(['fr-FR', 'zh-Hans-CN'])).toBe('zh-CN');
    expect(languageFromBrowser(['fr-FR'])).toBe('en');
    expect(languageFromBrowser([])).toBe('en');
  });

  it('maps the API spelling (zh-hans) to the UI and Intl one (zh-CN) and back', () => {
    expect(languageFromServer('zh-hans')).toBe('zh-CN');
    expect(languageFromServer('en')).toBe('en');
    expect(languageToServer('zh-CN')).toBe('zh-hans');
    expect(languageToServer('en')).toBe('en');
  });
});

describe('formatting per locale', () => {
  it('writes money and numbers the locale way, exactly, with the short currency symbol', () => {
    expect(formatMoney('1234567.5', 'CNY', 'zh-CN')).toBe('¥1,234,567.50');
    expect(formatMoney('1234567.5', 'CNY', 'en-GB')).toBe('¥1,234,567.50');
    expect(formatMoney('90071992547409.93', 'USD', 'zh-CN')).toBe('$90,071,992,547,409.93');
    expect(formatMoney('1234.5', 'USD', 'de-DE')).toBe('1.234,50\u00a0$'); // German: comma decimals, symbol after a no-break space.
    expect(formatDecimal('1120.5', 2, 'de-DE')).toBe('1.120,50');
    expect(formatPercent(0.1234, 1, 'zh-CN')).toBe('12.3%');
  });

  it('writes dates in Chinese in the organization timezone', () => {
    const iso = '2026-10-27T08:35:00Z';
    expect(formatDate(iso, 'Asia/Shanghai', false, 'zh-CN')).toBe('2026年10月27日');
    expect(formatDateTime(iso, 'Asia/Shanghai', 'zh-CN')).toBe('2026年10月27日 16:35');
    expect(formatDateTime(iso, 'Asia/Shanghai', 'en-GB')).toBe('27 Oct 2026, 16:35');
    const now = Date.parse(iso);
    expect(formatRelative('2026-10-27T08:30:00Z', now, 'zh-CN')).toBe('5分钟前');
    expect(formatRelative('2026-10-27T08:30:00Z', now, 'en-GB')).toBe('5 minutes ago');
  });

  it('follows the UI language when no locale is given', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(intlLocale()).toBe('zh-CN');
    expect(formatDate('2026-10-27T08:35:00Z', 'UTC')).toBe('2026年10月27日');
    expect(formatMinutes(135)).toBe('2 小时 15 分');
    expect(formatRelative('2026-10-27T08:35:00Z', Date.parse('2026-10-27T08:35:20Z'))).toBe('刚刚');
    expect(PHASE_LABELS.idle).toBe('空闲');
    await i18n.changeLanguage('en');
    expect(formatMinutes(135)).toBe('2 h 15 m');
    expect(PHASE_LABELS.idle).toBe('Idle');
  });
});

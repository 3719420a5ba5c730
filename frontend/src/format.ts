import { i18n, intlLocale, translatedLabels } from './i18n';

const dateTimeFormatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string | undefined, withTime: boolean, locale: string): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone ?? ''}|${withTime}`;
  let f = dateTimeFormatters.get(key);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat(locale, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        ...(withTime ? { hour: '2-digit', minute: '2-digit' } : {}),
        timeZone,
      });
    } catch {
      f = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric' });
    }
    dateTimeFormatters.set(key, f);
  }
  return f;
}

/** Formats an ISO timestamp in the organization's timezone, the way the UI language writes dates. */
export function formatDate(
  iso: string | null | undefined,
  timeZone?: string,
  withTime = false,
  locale: string = intlLocale(),
): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return formatter(timeZone, withTime, locale).format(d);
}

const weekdayFormatters = new Map<string, Intl.DateTimeFormat>();

/**
 * "Mon, 27 Oct 2026, 19:00" / "2026年10月27日周一 19:00": a moment with its weekday, in the organization's
 * timezone, for what happens on a day of the week (a schedule's next stop or start).
 */
export function formatWeekdayDateTime(iso: string | null | undefined, timeZone?: string, locale: string = intlLocale()): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  const key = `${locale}|${timeZone ?? ''}`;
  let f = weekdayFormatters.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      weekday: 'short',
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    };
    try {
      f = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    } catch {
      f = new Intl.DateTimeFormat(locale, options);
    }
    weekdayFormatters.set(key, f);
  }
  return f.format(d);
}

/** A local calendar day (`YYYY-MM-DD`, no timezone: it is already the organization's day) in words. */
export function formatDay(day: string, locale: string = intlLocale()): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return new Intl.DateTimeFormat(locale, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }).format(d);
}

export function formatDateTime(iso: string | null | undefined, timeZone?: string, locale: string = intlLocale()): string {
  return formatDate(iso, timeZone, true, locale);
}

export const CURRENCY_LABELS: Record<string, string> = translatedLabels(['CNY', 'USD'], 'currency');

const relativeFormatters = new Map<string, Intl.RelativeTimeFormat>();

function relativeFormatter(locale: string): Intl.RelativeTimeFormat {
  let f = relativeFormatters.get(locale);
  if (!f) {
    f = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
    relativeFormatters.set(locale, f);
  }
  return f;
}

const RELATIVE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['minute', 60],
  ['hour', 60 * 60],
  ['day', 24 * 60 * 60],
  ['month', 30 * 24 * 60 * 60],
  ['year', 365 * 24 * 60 * 60],
];

/**
 * "5 minutes ago", "in 3 hours"; under a minute either way is "just now".
 * Returns null for a missing or unparsable timestamp so the caller can say "Never" or "—".
 */
export function formatRelative(
  iso: string | null | undefined,
  now: number = Date.now(),
  locale: string = intlLocale(),
): string | null {
  if (!iso) return null;
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return null;
  const seconds = (t - now) / 1000;
  const abs = Math.abs(seconds);
  if (abs < 60) return i18n.t('time.justNow');
  let unit: Intl.RelativeTimeFormatUnit = 'minute';
  let size = 60;
  for (const [u, s] of RELATIVE_STEPS) {
    if (abs >= s) {
      unit = u;
      size = s;
    }
  }
  const value = Math.round(abs / size) * Math.sign(seconds);
  return relativeFormatter(locale).format(value, unit);
}

/** Up to two decimals, no trailing zeros: 1, 0.25, 1.5. */
export function formatNumber(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** Items as the language writes a list ("disks, bandwidth and IPs"; "云硬盘、带宽和 IP"). */
export function formatList(items: readonly string[], locale: string = intlLocale()): string {
  return new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(items);
}

const dateTimeFormatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string | undefined, withTime: boolean): Intl.DateTimeFormat {
  const key = `${timeZone ?? ''}|${withTime}`;
  let f = dateTimeFormatters.get(key);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-GB', {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        ...(withTime ? { hour: '2-digit', minute: '2-digit' } : {}),
        timeZone,
      });
    } catch {
      f = new Intl.DateTimeFormat('en-GB', { year: 'numeric', month: 'short', day: 'numeric' });
    }
    dateTimeFormatters.set(key, f);
  }
  return f;
}

/** Formats an ISO timestamp in the organization's timezone. */
export function formatDate(iso: string | null | undefined, timeZone?: string, withTime = false): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return formatter(timeZone, withTime).format(d);
}

export function formatDateTime(iso: string | null | undefined, timeZone?: string): string {
  return formatDate(iso, timeZone, true);
}

export const CURRENCY_LABELS: Record<string, string> = {
  CNY: 'CNY (¥, Tencent Cloud China)',
  USD: 'USD ($, Tencent Cloud International)',
};

/**
 * Money and other decimal strings from the API ("208.40", "2.2500"), handled without floats.
 *
 * The API sends money as decimal strings with the currency beside them. Everything shown as an amount
 * (including a sum of two amounts) is computed here on integers (BigInt); only ratios (shares, percentages)
 * are computed with floats.
 */

import { intlLocale } from './i18n';

export const CURRENCY_SYMBOLS: Record<string, string> = { CNY: '¥', USD: '$' };

interface Decimal {
  /** The value times 10^scale. */
  units: bigint;
  scale: number;
}

const DECIMAL_RE = /^\s*([+-])?(\d*)(?:\.(\d*))?\s*$/;

export function parseDecimal(value: string | null | undefined): Decimal | null {
  if (value == null) return null;
  const m = DECIMAL_RE.exec(String(value));
  if (!m || (!m[2] && !m[3])) return null;
  const fraction = m[3] ?? '';
  const units = BigInt(`${m[2] || '0'}${fraction}`);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

function rescale(d: Decimal, scale: number): bigint {
  return d.units * 10n ** BigInt(scale - d.scale);
}

function toText(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale);
  const fraction = scale > 0 ? `.${digits.slice(digits.length - scale)}` : '';
  return `${negative ? '-' : ''}${int}${fraction}`;
}

/** Exact sum of decimal strings; missing or unparsable values count as zero. */
export function sumDecimals(values: (string | null | undefined)[]): string {
  const parsed = values.map(parseDecimal).filter((d): d is Decimal => d !== null);
  const scale = Math.max(0, ...parsed.map((d) => d.scale));
  const total = parsed.reduce((acc, d) => acc + rescale(d, scale), 0n);
  return toText(total, scale);
}

/** Orders two decimal strings (missing ones first): negative, zero or positive like a sort comparator. */
export function compareDecimals(a: string | null | undefined, b: string | null | undefined): number {
  const da = parseDecimal(a);
  const db = parseDecimal(b);
  if (!da || !db) return (da ? 1 : 0) - (db ? 1 : 0);
  const scale = Math.max(da.scale, db.scale);
  const diff = rescale(da, scale) - rescale(db, scale);
  return diff === 0n ? 0 : diff < 0n ? -1 : 1;
}

export function isPositive(value: string | null | undefined): boolean {
  const d = parseDecimal(value);
  return d !== null && d.units > 0n;
}

/** Rounds half away from zero to `places` decimals: "2.2450" -> "2.25" (places = 2). */
export function roundDecimal(value: string, places: number): string | null {
  const d = parseDecimal(value);
  if (!d) return null;
  if (d.scale <= places) return toText(rescale(d, places), places);
  const divisor = 10n ** BigInt(d.scale - places);
  const abs = d.units < 0n ? -d.units : d.units;
  let rounded = abs / divisor;
  if ((abs % divisor) * 2n >= divisor) rounded += 1n;
  return toText(d.units < 0n ? -rounded : rounded, places);
}

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let f = numberFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, options);
    numberFormats.set(key, f);
  }
  return f;
}

/**
 * Formats an already rounded decimal string with Intl. Intl formats a numeric string exactly (no
 * float in between), so "12345678901234.57" keeps its cents.
 */
function formatRounded(rounded: string, locale: string, options: Intl.NumberFormatOptions): string {
  return numberFormat(locale, options).format(rounded as unknown as number);
}

/** "1234.5" -> "1,234.50" with `places` decimals, grouped the locale's way; "—" when missing. */
export function formatDecimal(value: string | null | undefined, places = 2, locale: string = intlLocale()): string {
  if (value == null) return '—';
  const rounded = roundDecimal(value, places);
  if (rounded === null) return '—';
  return formatRounded(rounded, locale, { minimumFractionDigits: places, maximumFractionDigits: places });
}

/**
 * "1234.5", "CNY" -> "¥1,234.50" in the locale's currency format; a currency the product does not bill in
 * goes after the amount ("1,234.50 EUR").
 */
export function formatMoney(amount: string | null | undefined, currency: string, locale: string = intlLocale()): string {
  if (amount == null) return '—';
  const rounded = roundDecimal(amount, 2);
  if (rounded === null) return '—';
  if (!CURRENCY_SYMBOLS[currency]) return `${formatDecimal(rounded, 2, locale)} ${currency}`;
  return formatRounded(rounded, locale, {
    style: 'currency',
    currency,
    // "¥", not "CN¥": the organization has one currency, so the short symbol is unambiguous.
    currencyDisplay: 'narrowSymbol',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
}

/** part / whole as a float for percentages; null when either is missing or the whole is not positive. */
export function ratio(part: string | null | undefined, whole: string | null | undefined): number | null {
  if (part == null || whole == null) return null;
  const p = Number(part);
  const w = Number(whole);
  if (!Number.isFinite(p) || !Number.isFinite(w) || w <= 0) return null;
  return p / w;
}

/** 0.1234 -> "12.3%"; null -> "—". */
export function formatPercent(fraction: number | null | undefined, digits = 1, locale: string = intlLocale()): string {
  if (fraction == null || !Number.isFinite(fraction)) return '—';
  return numberFormat(locale, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    fraction,
  );
}

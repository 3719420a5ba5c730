/**
 * The date range of a page (Overview, an instance): a preset or custom calendar days, kept in the URL
 * (`?range=30d`, `?range=custom&from=2026-03-01&to=2026-03-15`) so a link shows the same period.
 *
 * Days are the organization's calendar days: "today" and "this month" are computed in its timezone, not
 * the browser's, and the API reads a naive date in the organization's timezone too.
 */

export const RANGE_PRESETS = ['7d', '30d', '90d', 'mtd', 'last-month', 'custom'] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];

/** Inclusive calendar days, `YYYY-MM-DD`, in the organization's timezone. */
export interface DateRange {
  preset: RangePreset;
  from: string;
  to: string;
}

export interface RangeOptions {
  /** The longest period the page's API accepts, in days. */
  maxDays: number;
  defaultPreset: Exclude<RangePreset, 'custom'>;
}

/**
 * The range the dashboard's pages open on, one default for all of them: the Overview, Projects and
 * Instances show the same days until one is changed, so a project's spend on Projects is the Overview's.
 * (/costs, /utilization and /usage answer at most 93 days.) An instance's page, with its minute data, and
 * the exports have their own.
 */
export const DASHBOARD_RANGE: RangeOptions = { maxDays: 93, defaultPreset: '30d' };

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Today's date in `timeZone` ("YYYY-MM-DD"). */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  // en-CA writes ISO order; formatToParts avoids relying on it anyway.
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(
    now,
  );
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

function toUtcMs(day: string): number | null {
  const m = DAY_RE.exec(day);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Date.UTC rolls 2026-02-30 over to March: such a day does not exist.
  return new Date(ms).toISOString().slice(0, 10) === day ? ms : null;
}

export function isCalendarDay(day: string): boolean {
  return toUtcMs(day) !== null;
}

/** Calendar arithmetic on `YYYY-MM-DD` (no timezone involved: a day is a day). */
export function addDays(day: string, days: number): string {
  const ms = toUtcMs(day);
  if (ms === null) throw new Error(`Not a calendar day: ${day}`);
  return new Date(ms + days * 86_400_000).toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both included. */
export function daysInRange(from: string, to: string): number {
  const a = toUtcMs(from);
  const b = toUtcMs(to);
  if (a === null || b === null) return 0;
  return Math.round((b - a) / 86_400_000) + 1;
}

function firstOfMonth(day: string): string {
  return `${day.slice(0, 8)}01`;
}

/** The days a preset covers when today (in the organization's timezone) is `today`. */
export function presetRange(preset: Exclude<RangePreset, 'custom'>, today: string): DateRange {
  switch (preset) {
    case '7d':
      return { preset, from: addDays(today, -6), to: today };
    case '30d':
      return { preset, from: addDays(today, -29), to: today };
    case '90d':
      return { preset, from: addDays(today, -89), to: today };
    case 'mtd':
      return { preset, from: firstOfMonth(today), to: today };
    case 'last-month': {
      const lastDay = addDays(firstOfMonth(today), -1);
      return { preset, from: firstOfMonth(lastDay), to: lastDay };
    }
  }
}

/** The presets a page offers: those that always fit in its longest period. */
export function presetsFor(maxDays: number): RangePreset[] {
  const longest: Record<RangePreset, number> = { '7d': 7, '30d': 30, '90d': 90, mtd: 31, 'last-month': 31, custom: 1 };
  return RANGE_PRESETS.filter((p) => longest[p] <= maxDays);
}

export type CustomRangeProblem = 'invalid' | 'order' | 'too-long';

/** Why a custom range cannot be asked for, or null when it can. */
export function customRangeProblem(from: string, to: string, maxDays: number): CustomRangeProblem | null {
  if (!isCalendarDay(from) || !isCalendarDay(to)) return 'invalid';
  if (to < from) return 'order';
  if (daysInRange(from, to) > maxDays) return 'too-long';
  return null;
}

/**
 * The range a URL asks for. Anything the page cannot show (an unknown preset, a malformed or too long
 * custom range) falls back to the page's default preset rather than an error page.
 */
export function rangeFromParams(params: URLSearchParams, today: string, options: RangeOptions): DateRange {
  const preset = params.get('range');
  if (preset === 'custom') {
    const from = params.get('from') ?? '';
    const to = params.get('to') ?? '';
    if (customRangeProblem(from, to, options.maxDays) === null) return { preset, from, to };
  } else if (preset && (presetsFor(options.maxDays) as string[]).includes(preset)) {
    return presetRange(preset as Exclude<RangePreset, 'custom'>, today);
  }
  return presetRange(options.defaultPreset, today);
}

/** Writes the range into the page's other query parameters; the default preset leaves the URL clean. */
export function rangeToParams(params: URLSearchParams, range: DateRange, options: RangeOptions): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete('range');
  next.delete('from');
  next.delete('to');
  if (range.preset === 'custom') {
    next.set('range', 'custom');
    next.set('from', range.from);
    next.set('to', range.to);
  } else if (range.preset !== options.defaultPreset) {
    next.set('range', range.preset);
  }
  return next;
}

/** The API's `start`/`end` (naive dates are read in the organization's timezone; `end` is exclusive). */
export function apiPeriod(range: DateRange): { start: string; end: string } {
  return { start: range.from, end: addDays(range.to, 1) };
}

function zoneOffsetMs(utcMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
  return asUtc - utcMs;
}

/**
 * The first moment of calendar day `day` (YYYY-MM-DD) in `timeZone`, as the ISO instant (with its `Z`) that
 * the APIs taking instants need (a recommendation's snooze, the audit log's since/until): they refuse a time
 * without an offset, and "until 3 November" means the organization's midnight, not the browser's. Null for a
 * malformed day.
 */
export function startOfDayIn(day: string, timeZone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const naive = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (new Date(naive).toISOString().slice(0, 10) !== day) return null;
  let utc = naive - zoneOffsetMs(naive, timeZone);
  // Across a DST change the offset at midnight differs from the guess's: correct once.
  utc = naive - zoneOffsetMs(utc, timeZone);
  return new Date(utc).toISOString().replace('.000Z', 'Z');
}

/**
 * Off windows (recurring low hours of the week) in plain words: "weekdays 19:00–09:00 and weekends",
 * "every day 22:00–07:00", "all week". Pure: the hours of the week go in, a structured description comes
 * out (`describeWeekHours`), and `windowWords` renders it through the catalogs given a translate function.
 *
 * Hours of the week are numbered Monday 00:00 = 0 to Sunday 23:00 = 167, in the profile's timezone.
 */

export const HOURS_PER_WEEK = 168;
/** Catalog keys of the short weekday names, Monday first (the heatmap's too). */
export const WEEKDAY_KEYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** A run of an off window as the profile endpoint sends it (0 = Monday; the end hour exclusive). */
export interface WeekRun {
  start_weekday: number;
  start_hour: number;
  end_weekday: number;
  end_hour: number;
  hours: number;
}

/** Which days a daily window starts on. */
export type DaySet = 'everyDay' | 'weekdays' | 'weekends' | number[];

export type WindowPhrase =
  /** Every hour of the week. */
  | { kind: 'allWeek' }
  /** Saturday 00:00 to Monday 00:00. */
  | { kind: 'weekends' }
  /**
   * The same hours `from`–`to` on each day of `days` (crossing midnight when `to` <= `from`: the window
   * that starts on Friday 19:00 ends on Saturday 09:00). With `andWeekends`, the whole weekend too.
   */
  | { kind: 'daily'; days: DaySet; from: number; to: number; andWeekends: boolean }
  /** A run that fits no pattern: from a weekday and hour to another (never a whole week). */
  | { kind: 'span'; fromDay: number; fromHour: number; toDay: number; toHour: number };

const WEEKEND = range(5 * 24, HOURS_PER_WEEK);
const WEEKDAYS = [0, 1, 2, 3, 4];
const WEEKEND_DAYS = [5, 6];
const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** The hours of the week inside the runs (a run of 168 hours or more is the whole week). */
export function weekHoursOfRuns(runs: readonly WeekRun[]): boolean[] {
  const hours = new Array<boolean>(HOURS_PER_WEEK).fill(false);
  for (const run of runs) {
    const first = run.start_weekday * 24 + run.start_hour;
    const last = run.end_weekday * 24 + run.end_hour;
    const length = run.hours > 0 ? run.hours : (last - first + HOURS_PER_WEEK) % HOURS_PER_WEEK;
    for (let k = 0; k < Math.min(length, HOURS_PER_WEEK); k++) hours[(first + k) % HOURS_PER_WEEK] = true;
  }
  return hours;
}

/** The hours of the window `from`–`to` starting on `day` (to <= from: it ends the next day; week wraps). */
function windowHours(day: number, from: number, to: number): number[] {
  const length = to > from ? to - from : to + 24 - from;
  return range(0, length).map((k) => (day * 24 + from + k) % HOURS_PER_WEEK);
}

/** Hours of the week as a bit mask (bit h = hour h): unions and comparisons are single operations. */
function maskOf(hours: Iterable<number>): bigint {
  let mask = 0n;
  for (const h of hours) mask |= 1n << BigInt(h);
  return mask;
}

// The mask of every daily window, by from, to and starting day, computed once.
const WINDOW_MASKS: bigint[][][] = Array.from({ length: 24 }, (_, from) =>
  Array.from({ length: 24 }, (_, to) => ALL_DAYS.map((day) => (from === to ? 0n : maskOf(windowHours(day, from, to))))),
);
const WEEKEND_MASK = maskOf(WEEKEND);

function union(days: number[], from: number, to: number, extra = 0n): bigint {
  return days.reduce((mask, d) => mask | WINDOW_MASKS[from]![to]![d]!, extra);
}

function daySet(days: number[]): DaySet {
  const key = days.join(',');
  if (key === ALL_DAYS.join(',')) return 'everyDay';
  if (key === WEEKDAYS.join(',')) return 'weekdays';
  if (key === WEEKEND_DAYS.join(',')) return 'weekends';
  return days;
}

/** Candidate windows, ending at any hour: `from` then `to`, every pair of distinct hours. */
function* windowPairs(): Generator<[number, number]> {
  for (let from = 0; from < 24; from++) {
    for (let to = 0; to < 24; to++) if (to !== from) yield [from, to];
  }
}

/**
 * The simplest true description of `hours` (168 booleans). Tried in order: all week; the weekend; one daily
 * window on every day, on weekdays, on weekend days or on some days (with or without the whole weekend);
 * else each contiguous run, wrapping around the week's end, as a span "Fri 19:00 – Mon 09:00".
 */
export function describeWeekHours(hours: readonly boolean[]): WindowPhrase[] {
  const set = Array.from({ length: HOURS_PER_WEEK }, (_, i) => Boolean(hours[i]));
  const count = set.filter(Boolean).length;
  if (count === 0) return [];
  if (count === HOURS_PER_WEEK) return [{ kind: 'allWeek' }];
  const mask = maskOf(range(0, HOURS_PER_WEEK).filter((h) => set[h]));
  if (mask === WEEKEND_MASK) return [{ kind: 'weekends' }];
  const weekendOff = (mask & WEEKEND_MASK) === WEEKEND_MASK;

  const inSet = (day: number, from: number, to: number) => {
    const window = WINDOW_MASKS[from]![to]![day]!;
    return (mask & window) === window;
  };
  const patterns: { days: number[]; andWeekends: boolean }[] = [
    { days: ALL_DAYS, andWeekends: false },
    ...(weekendOff ? [{ days: WEEKDAYS, andWeekends: true }] : []),
    { days: WEEKDAYS, andWeekends: false },
    { days: WEEKEND_DAYS, andWeekends: false },
  ];
  for (const { days, andWeekends } of patterns) {
    for (const [from, to] of windowPairs()) {
      // "Weekdays 19:00–09:00 and weekends" is off from Friday 19:00 to Monday 09:00: Sunday evening's
      // window (into Monday morning) belongs to it, so the check uses every day's window plus the weekend.
      const cover = andWeekends ? union(ALL_DAYS, from, to, WEEKEND_MASK) : union(days, from, to);
      if (cover === mask) return [{ kind: 'daily', days: daySet(days), from, to, andWeekends }];
    }
  }
  // Some days only (e.g. Monday, Wednesday and Friday nights): the days whose window is all off.
  for (const [from, to] of windowPairs()) {
    const days = ALL_DAYS.filter((d) => inSet(d, from, to));
    if (days.length === 0) continue;
    if (union(days, from, to) === mask) return [{ kind: 'daily', days: daySet(days), from, to, andWeekends: false }];
    const weekdays = days.filter((d) => d < 5);
    if (weekendOff && weekdays.length > 0 && union(days, from, to, WEEKEND_MASK) === mask) {
      return [{ kind: 'daily', days: daySet(weekdays), from, to, andWeekends: true }];
    }
  }
  return spans(set);
}

/** Contiguous runs of the week, wrapping Sunday into Monday; the set is neither empty nor full. */
function spans(set: boolean[]): WindowPhrase[] {
  const gap = set.indexOf(false);
  const out: WindowPhrase[] = [];
  let start: number | null = null;
  for (let k = 1; k <= HOURS_PER_WEEK; k++) {
    const h = (gap + k) % HOURS_PER_WEEK;
    if (set[h] && start === null) start = h;
    if (!set[h] && start !== null) {
      out.push({ kind: 'span', fromDay: Math.floor(start / 24), fromHour: start % 24, toDay: Math.floor(h / 24), toHour: h % 24 });
      start = null;
    }
  }
  return out;
}

/** The translate function of react-i18next or `i18n.getFixedT` (only what is used here). */
export type Translate = (key: string, options?: Record<string, unknown>) => string;

function clock(hour: number): string {
  return `${String(hour).padStart(2, '0')}:00`;
}

function dayName(t: Translate, day: number): string {
  return t(`weekday.${WEEKDAY_KEYS[day]}`);
}

function timeRange(t: Translate, from: number, to: number): string {
  // A window that ends at midnight ends at 24:00 the same day, not at "00:00" of the next.
  if (to === 0) return t('instanceDetail.window.range', { from: clock(from), to: '24:00' });
  if (to < from) return t('instanceDetail.window.rangeOvernight', { from: clock(from), to: clock(to) });
  return t('instanceDetail.window.range', { from: clock(from), to: clock(to) });
}

function listOf(items: string[], locale: string): string {
  return new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(items);
}

function phraseWords(t: Translate, phrase: WindowPhrase, locale: string): string {
  switch (phrase.kind) {
    case 'allWeek':
      return t('instanceDetail.window.allWeek');
    case 'weekends':
      return t('instanceDetail.window.weekends');
    case 'span':
      return t('instanceDetail.window.span', {
        fromDay: dayName(t, phrase.fromDay),
        from: clock(phrase.fromHour),
        toDay: dayName(t, phrase.toDay),
        to: clock(phrase.toHour),
      });
    case 'daily': {
      const hours = timeRange(t, phrase.from, phrase.to);
      const { days } = phrase;
      if (phrase.andWeekends) {
        if (days === 'weekdays') return t('instanceDetail.window.weekdaysAndWeekends', { range: hours });
        const names = typeof days === 'string' ? [] : days.map((d) => dayName(t, d));
        return t('instanceDetail.window.daysAndWeekends', { days: listOf(names, locale), range: hours });
      }
      if (days === 'everyDay') return t('instanceDetail.window.everyDay', { range: hours });
      if (days === 'weekdays') return t('instanceDetail.window.weekdays', { range: hours });
      if (days === 'weekends') return t('instanceDetail.window.weekendDays', { range: hours });
      return t('instanceDetail.window.days', { days: listOf(days.map((d) => dayName(t, d)), locale), range: hours });
    }
  }
}

/** The description in words, several phrases joined as a list ("Mon 02:00–04:00 and Thu 13:00–15:00"). */
export function windowWords(t: Translate, phrases: WindowPhrase[], locale: string): string {
  if (phrases.length === 0) return t('instanceDetail.window.none');
  return listOf(
    phrases.map((p) => phraseWords(t, p, locale)),
    locale,
  );
}

/** Shortcut: an off window's runs in words. */
export function offWindowWords(t: Translate, runs: readonly WeekRun[], locale: string): string {
  return windowWords(t, describeWeekHours(weekHoursOfRuns(runs)), locale);
}

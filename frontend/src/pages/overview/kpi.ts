/** The month-to-date cards' arithmetic: which days of last month compare, and the change. */
import type { MonthToDate } from '../../api/types';

function parts(day: string): [number, number, number] {
  const [y, m, d] = day.split('-').map(Number);
  return [y!, m!, d!];
}

function iso(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/**
 * The complete days of this month so far (the 1st to yesterday) and the same days of the previous month,
 * clipped to its length (30 March compares with 1–28 February). Today is left out of the comparison: its
 * later hours are not billed yet. null on the 1st (no complete day yet).
 */
export function sameDaysLastMonth(mtd: Pick<MonthToDate, 'month_start' | 'today'>): {
  days: number;
  current: { start: string; end: string };
  previous: { start: string; end: string };
} | null {
  const [y, m] = parts(mtd.month_start);
  const [, , today] = parts(mtd.today);
  const days = today - 1;
  if (days < 1) return null;
  const py = m === 1 ? y - 1 : y;
  const pm = m === 1 ? 12 : m - 1;
  const last = Math.min(days, daysInMonth(py, pm));
  return {
    days,
    current: { start: mtd.month_start, end: iso(y, m, days) },
    previous: { start: iso(py, pm, 1), end: iso(py, pm, last) },
  };
}

/** (now − before) / before as a fraction; null when there was nothing before to compare with. */
export function changeRatio(now: string, before: string): number | null {
  const b = Number(before);
  const n = Number(now);
  if (!Number.isFinite(b) || !Number.isFinite(n) || b <= 0) return null;
  return (n - b) / b;
}

/** Days from the 1st to today, both included: how many days the month-to-date spend covers. */
export function daysSoFar(mtd: Pick<MonthToDate, 'today'>): number {
  return parts(mtd.today)[2];
}

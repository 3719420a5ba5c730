import { describe, expect, it } from 'vitest';
import { i18n } from '../../i18n';
import { describeWeekHours, HOURS_PER_WEEK, offWindowWords, weekHoursOfRuns, windowWords, type WeekRun } from './offWindowWords';

const en = i18n.getFixedT('en');
const zh = i18n.getFixedT('zh-CN');

/** Hours of the week from [day, hour, day, hour) spans (the end exclusive; wrapping the week's end). */
function hoursOf(...spans: [number, number, number, number][]): boolean[] {
  const set = new Array<boolean>(HOURS_PER_WEEK).fill(false);
  for (const [d0, h0, d1, h1] of spans) {
    const first = d0 * 24 + h0;
    const length = (d1 * 24 + h1 - first + HOURS_PER_WEEK) % HOURS_PER_WEEK || HOURS_PER_WEEK;
    for (let k = 0; k < length; k++) set[(first + k) % HOURS_PER_WEEK] = true;
  }
  return set;
}

function words(hours: boolean[], language: 'en' | 'zh-CN' = 'en'): string {
  return windowWords(language === 'en' ? en : zh, describeWeekHours(hours), language === 'en' ? 'en-GB' : 'zh-CN');
}

/** Weekday nights 19:00–09:00 and the weekend: Friday 19:00 to Monday 09:00 plus Mon–Thu nights. */
const WEEKNIGHTS_AND_WEEKENDS: WeekRun[] = [
  { start_weekday: 4, start_hour: 19, end_weekday: 0, end_hour: 9, hours: 62 },
  ...[0, 1, 2, 3].map((d) => ({ start_weekday: d, start_hour: 19, end_weekday: d + 1, end_hour: 9, hours: 14 })),
];

describe('off windows in plain words', () => {
  it('says "all week" for 168 hours, never "Mon 00:00–Mon 00:00"', () => {
    const run: WeekRun = { start_weekday: 0, start_hour: 0, end_weekday: 0, end_hour: 0, hours: 168 };
    expect(describeWeekHours(weekHoursOfRuns([run]))).toEqual([{ kind: 'allWeek' }]);
    expect(offWindowWords(en, [run], 'en-GB')).toBe('all week');
    expect(offWindowWords(zh, [run], 'zh-CN')).toBe('全周');
    // Starting elsewhere in the week changes nothing.
    expect(offWindowWords(en, [{ ...run, start_weekday: 3, start_hour: 7, end_weekday: 3, end_hour: 7 }], 'en-GB')).toBe(
      'all week',
    );
  });

  it('says weekday nights and weekends as a person would', () => {
    const hours = weekHoursOfRuns(WEEKNIGHTS_AND_WEEKENDS);
    expect(describeWeekHours(hours)).toEqual([{ kind: 'daily', days: 'weekdays', from: 19, to: 9, andWeekends: true }]);
    expect(words(hours)).toBe('weekdays 19:00–09:00 and weekends');
    expect(words(hours, 'zh-CN')).toBe('工作日 19:00 至次日 09:00，以及周末全天');
  });

  it('says a window crossing midnight every day, wrapping Sunday night into Monday', () => {
    const hours = hoursOf(...[0, 1, 2, 3, 4, 5, 6].map((d): [number, number, number, number] => [d, 22, (d + 1) % 7, 7]));
    expect(hours[0]).toBe(true); // Sunday 22:00's window covers Monday 00:00.
    expect(words(hours)).toBe('every day 22:00–07:00');
    expect(words(hours, 'zh-CN')).toBe('每天 22:00 至次日 07:00');
  });

  it('says a daytime window, one ending at midnight and weekday-only nights', () => {
    const lunch = hoursOf(...[0, 1, 2, 3, 4, 5, 6].map((d): [number, number, number, number] => [d, 12, d, 14]));
    expect(words(lunch)).toBe('every day 12:00–14:00');
    const evenings = hoursOf(...[0, 1, 2, 3, 4, 5, 6].map((d): [number, number, number, number] => [d, 20, (d + 1) % 7, 0]));
    expect(words(evenings)).toBe('every day 20:00–24:00');
    // Weeknights starting Monday to Friday: Friday's ends on Saturday morning, Monday morning stays busy.
    const weeknights = hoursOf(...[0, 1, 2, 3, 4].map((d): [number, number, number, number] => [d, 22, d + 1, 6]));
    expect(weeknights[5 * 24 + 5]).toBe(true);
    expect(weeknights[3]).toBe(false);
    expect(words(weeknights)).toBe('weekdays 22:00–06:00');
    expect(words(weeknights, 'zh-CN')).toBe('工作日 22:00 至次日 06:00');
  });

  it('says the weekend alone, weekend hours and some days', () => {
    expect(words(hoursOf([5, 0, 0, 0]))).toBe('weekends');
    expect(words(hoursOf([5, 0, 0, 0]), 'zh-CN')).toBe('周末全天');
    expect(words(hoursOf([5, 8, 5, 12], [6, 8, 6, 12]))).toBe('weekends 08:00–12:00');
    expect(words(hoursOf([0, 1, 0, 5], [2, 1, 2, 5], [4, 1, 4, 5]))).toBe('Mon, Wed and Fri 01:00–05:00');
    expect(words(hoursOf([0, 1, 0, 5], [2, 1, 2, 5], [4, 1, 4, 5]), 'zh-CN')).toBe('周一、周三和周五 01:00–05:00');
  });

  it('falls back to spans, across the week end, when no pattern fits', () => {
    // Saturday 10:00 to Monday 03:00 and Wednesday 13:00 to 15:00.
    const hours = hoursOf([5, 10, 0, 3], [2, 13, 2, 15]);
    expect(describeWeekHours(hours)).toEqual([
      { kind: 'span', fromDay: 2, fromHour: 13, toDay: 2, toHour: 15 },
      { kind: 'span', fromDay: 5, fromHour: 10, toDay: 0, toHour: 3 },
    ]);
    expect(words(hours)).toBe('Wed 13:00–Wed 15:00 and Sat 10:00–Mon 03:00');
    expect(words(hours, 'zh-CN')).toBe('周三 13:00 至周三 15:00和周六 10:00 至周一 03:00');
    // A span that starts on Sunday and ends on Monday morning wraps the week's end.
    expect(describeWeekHours(hoursOf([6, 20, 0, 8], [2, 1, 2, 2]))).toContainEqual({
      kind: 'span',
      fromDay: 6,
      fromHour: 20,
      toDay: 0,
      toHour: 8,
    });
  });

  it('never says a span that starts and ends at the same moment', () => {
    for (let start = 0; start < HOURS_PER_WEEK; start += 7) {
      for (const length of [1, 23, 24, 100, 167, 168]) {
        const hours = new Array<boolean>(HOURS_PER_WEEK).fill(false);
        for (let k = 0; k < length; k++) hours[(start + k) % HOURS_PER_WEEK] = true;
        for (const p of describeWeekHours(hours)) {
          if (p.kind === 'span') expect(p.fromDay * 24 + p.fromHour).not.toBe(p.toDay * 24 + p.toHour);
        }
      }
    }
  });

  it('says nothing is off for no hours', () => {
    expect(describeWeekHours(new Array<boolean>(HOURS_PER_WEEK).fill(false))).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  addDays,
  apiPeriod,
  customRangeProblem,
  daysInRange,
  presetRange,
  presetsFor,
  rangeFromParams,
  rangeToParams,
  todayIn,
} from './dateRange';

const OPTIONS = { maxDays: 93, defaultPreset: '30d' } as const;

describe('today in the organization timezone', () => {
  it('is already tomorrow in Shanghai while still today in UTC and yesterday in New York', () => {
    // 2026-03-31 17:30 UTC = 2026-04-01 01:30 in Shanghai (UTC+8) = 13:30 in New York (EDT).
    const now = new Date('2026-03-31T17:30:00Z');
    expect(todayIn('Asia/Shanghai', now)).toBe('2026-04-01');
    expect(todayIn('UTC', now)).toBe('2026-03-31');
    expect(todayIn('America/New_York', now)).toBe('2026-03-31');
    expect(todayIn('America/New_York', new Date('2026-04-01T02:00:00Z'))).toBe('2026-03-31');
  });

  it('makes "month to date" a new month in Shanghai at 16:00 UTC on the last day', () => {
    const now = new Date('2026-03-31T16:00:00Z');
    expect(presetRange('mtd', todayIn('Asia/Shanghai', now))).toEqual({ preset: 'mtd', from: '2026-04-01', to: '2026-04-01' });
    expect(presetRange('mtd', todayIn('UTC', now))).toEqual({ preset: 'mtd', from: '2026-03-01', to: '2026-03-31' });
  });
});

describe('presets', () => {
  it('counts today as the last of the N days', () => {
    expect(presetRange('7d', '2026-03-05')).toEqual({ preset: '7d', from: '2026-02-27', to: '2026-03-05' });
    expect(daysInRange('2026-02-27', '2026-03-05')).toBe(7);
    expect(presetRange('30d', '2026-03-05').from).toBe('2026-02-04');
    expect(presetRange('90d', '2026-03-05').from).toBe('2025-12-06');
    expect(daysInRange(presetRange('90d', '2026-03-05').from, '2026-03-05')).toBe(90);
  });

  it('takes the whole previous calendar month, across a year and in a leap February', () => {
    expect(presetRange('last-month', '2026-01-15')).toEqual({ preset: 'last-month', from: '2025-12-01', to: '2025-12-31' });
    expect(presetRange('last-month', '2024-03-01')).toEqual({ preset: 'last-month', from: '2024-02-01', to: '2024-02-29' });
    expect(presetRange('last-month', '2026-03-31')).toEqual({ preset: 'last-month', from: '2026-02-01', to: '2026-02-28' });
  });

  it('month to date on the first is that one day', () => {
    expect(presetRange('mtd', '2026-05-01')).toEqual({ preset: 'mtd', from: '2026-05-01', to: '2026-05-01' });
  });

  it('offers only presets that fit the page\'s longest period', () => {
    expect(presetsFor(93)).toEqual(['7d', '30d', '90d', 'mtd', 'last-month', 'custom']);
    expect(presetsFor(31)).toEqual(['7d', '30d', 'mtd', 'last-month', 'custom']);
  });
});

describe('the range in the URL', () => {
  it('reads a preset and a custom range, and writes them back', () => {
    const preset = rangeFromParams(new URLSearchParams('range=7d'), '2026-03-05', OPTIONS);
    expect(preset).toEqual({ preset: '7d', from: '2026-02-27', to: '2026-03-05' });
    const custom = rangeFromParams(new URLSearchParams('range=custom&from=2026-01-10&to=2026-02-09'), '2026-03-05', OPTIONS);
    expect(custom).toEqual({ preset: 'custom', from: '2026-01-10', to: '2026-02-09' });

    const params = new URLSearchParams('project=3');
    expect(rangeToParams(params, custom, OPTIONS).toString()).toBe('project=3&range=custom&from=2026-01-10&to=2026-02-09');
    expect(rangeToParams(new URLSearchParams('range=custom&from=x&to=y'), preset, OPTIONS).toString()).toBe('range=7d');
    // The default preset keeps the link short.
    expect(rangeToParams(new URLSearchParams('range=7d'), presetRange('30d', '2026-03-05'), OPTIONS).toString()).toBe('');
  });

  it('falls back to the default for an unknown preset, a bad or reversed day, or a range longer than the API takes', () => {
    const fallback = presetRange('30d', '2026-03-05');
    for (const query of [
      'range=yesterday',
      'range=custom&from=2026-02-30&to=2026-03-01',
      'range=custom&from=2026-03-05&to=2026-03-01',
      'range=custom&from=2025-01-01&to=2026-03-01',
      'range=custom&from=2026-03-01',
    ]) {
      expect(rangeFromParams(new URLSearchParams(query), '2026-03-05', OPTIONS)).toEqual(fallback);
    }
    // 90 days is beyond an instance page (31 days at most).
    expect(rangeFromParams(new URLSearchParams('range=90d'), '2026-03-05', { maxDays: 31, defaultPreset: '7d' }).preset).toBe('7d');
  });

  it('names what is wrong with a custom range', () => {
    expect(customRangeProblem('2026-03-01', '2026-03-31', 31)).toBeNull();
    expect(customRangeProblem('2026-03-01', '2026-04-01', 31)).toBe('too-long');
    expect(customRangeProblem('2026-03-02', '2026-03-01', 31)).toBe('order');
    expect(customRangeProblem('2026-13-01', '2026-03-01', 31)).toBe('invalid');
  });
});

describe('the period sent to the API', () => {
  it('ends the day after the last day (exclusive end), as naive dates in the organization timezone', () => {
    expect(apiPeriod({ preset: 'last-month', from: '2026-02-01', to: '2026-02-28' })).toEqual({
      start: '2026-02-01',
      end: '2026-03-01',
    });
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
  });
});


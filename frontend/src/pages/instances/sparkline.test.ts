import { describe, expect, it } from 'vitest';
import { endsToday, moneySeries, sparklineShape } from './sparkline';

describe('sparklineShape', () => {
  it('draws one segment through every day, the max at the top', () => {
    const shape = sparklineShape([0, 50, 100], 100, 20, { min: 0, max: 100 });
    expect(shape.segments).toEqual(['M0,20 L50,10 L100,0']);
    expect(shape.dots).toEqual([]);
  });

  it('breaks the line at days without data and draws lone days as dots', () => {
    const shape = sparklineShape([10, 20, null, 40, null, null], 50, 10, { min: 0, max: 40 });
    expect(shape.segments).toEqual(['M0,7.5 L10,5']);
    expect(shape.dots).toEqual([{ x: 30, y: 0 }]);
  });

  it('scales to the largest value by default and survives all zeros, one value or none', () => {
    expect(sparklineShape([1, 2], 10, 10).segments).toEqual(['M0,5 L10,0']);
    expect(sparklineShape([0, 0], 10, 10).segments).toEqual(['M0,10 L10,10']);
    expect(sparklineShape([5], 10, 10).dots).toEqual([{ x: 5, y: 0 }]);
    expect(sparklineShape([], 10, 10)).toEqual({ segments: [], dots: [] });
    expect(sparklineShape([null, null], 10, 10)).toEqual({ segments: [], dots: [] });
  });

  it('clamps values outside the scale', () => {
    expect(sparklineShape([-5, 150], 10, 10, { min: 0, max: 100 }).segments).toEqual(['M0,10 L10,0']);
  });
});

describe('moneySeries', () => {
  it('reads decimal strings for drawing', () => {
    expect(moneySeries(['1.50000000', '0', 'x'])).toEqual([1.5, 0, null]);
  });
});

describe('today so far', () => {
  it('draws the last value apart, joined by its own link, when the range ends today', () => {
    const shape = sparklineShape([10, 20, 5], 100, 20, { min: 0, max: 20 }, true);
    expect(shape.segments).toEqual(['M0,10 L50,0']);
    expect(shape.partial).toEqual({ x: 100, y: 15 });
    expect(shape.partialLink).toBe('M50,0 L100,15');
    expect(shape.dots).toEqual([]);
  });

  it('marks nothing when today has no value yet, and no link after a day without data', () => {
    expect(sparklineShape([10, 20, null], 100, 20, { min: 0, max: 20 }, true).partial ?? null).toBeNull();
    const lone = sparklineShape([10, null, 5], 100, 20, { min: 0, max: 20 }, true);
    expect(lone.partial).toEqual({ x: 100, y: 15 });
    expect(lone.partialLink).toBeNull();
    expect(lone.dots).toEqual([{ x: 0, y: 10 }]);
  });

  it('tells whether the range ends today in the organization timezone', () => {
    // 20:00 UTC on 1 December is already 2 December in Shanghai.
    const now = new Date('2026-12-01T20:00:00Z');
    expect(endsToday(['2026-12-01', '2026-12-02'], 'Asia/Shanghai', now)).toBe(true);
    expect(endsToday(['2026-12-01', '2026-12-02'], 'Europe/Berlin', now)).toBe(false);
    expect(endsToday([], 'Asia/Shanghai', now)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { compareDecimals, formatDecimal, formatMoney, formatPercent, ratio, roundDecimal, sumDecimals } from './money';
import { formatMinutes } from './phases';

describe('money from decimal strings', () => {
  it('formats amounts with the currency and thousands separators, without float rounding', () => {
    expect(formatMoney('26.05', 'CNY')).toBe('¥26.05');
    expect(formatMoney('1234567.5', 'USD')).toBe('$1,234,567.50');
    expect(formatMoney('0', 'CNY')).toBe('¥0.00');
    expect(formatMoney('-12.30', 'CNY')).toBe('-¥12.30');
    expect(formatMoney('99.50', 'EUR')).toBe('99.50 EUR');
    // Beyond float precision: 2^53 + 1 cents.
    expect(formatMoney('90071992547409.93', 'CNY')).toBe('¥90,071,992,547,409.93');
    expect(formatMoney(null, 'CNY')).toBe('—');
    expect(formatMoney('n/a', 'CNY')).toBe('—');
  });

  it('rounds half away from zero', () => {
    expect(roundDecimal('2.2450', 2)).toBe('2.25');
    expect(roundDecimal('0.6667', 2)).toBe('0.67');
    expect(roundDecimal('-0.005', 2)).toBe('-0.01');
    expect(roundDecimal('1.005', 2)).toBe('1.01'); // 1.005 as a float rounds to 1.00
    expect(roundDecimal('7', 2)).toBe('7.00');
    expect(formatDecimal('1120.5000')).toBe('1,120.50');
  });

  it('sums and compares exactly', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals(['0.3333', '1.0000', '0.6667', '0.5', '2.25'])).toBe('4.7500');
    expect(sumDecimals(['1.10', null, undefined, '-0.10'])).toBe('1.00');
    expect(compareDecimals('1600.25', '210.10')).toBe(1);
    expect(compareDecimals('9.9', '10.00')).toBe(-1);
    expect(compareDecimals('3.10', '3.1')).toBe(0);
    expect([...['2.00', '10.00', '1.50']].sort(compareDecimals)).toEqual(['1.50', '2.00', '10.00']);
  });

  it('computes shares as percentages, and none of a zero total', () => {
    expect(formatPercent(ratio('3.10', '26.05'))).toBe('11.9%');
    expect(ratio('1', '0.00')).toBeNull();
    expect(ratio(null, '1')).toBeNull();
    expect(formatPercent(null)).toBe('—');
  });

  it('writes minutes as hours and minutes', () => {
    expect(formatMinutes(135)).toBe('2 h 15 m');
    expect(formatMinutes(60)).toBe('1 h');
    expect(formatMinutes(45)).toBe('45 m');
    expect(formatMinutes(0)).toBe('0 m');
    expect(formatMinutes(44170)).toBe('736 h 10 m');
  });
});

import { describe, expect, it } from 'vitest';
import { formatList } from './format';

describe('formatList', () => {
  it('joins a list the way each language writes one', () => {
    expect(formatList(['system disk', 'data disk', 'bandwidth'], 'en-GB')).toBe('system disk, data disk and bandwidth');
    expect(formatList(['系统盘', '数据盘', '带宽'], 'zh-CN')).toBe('系统盘、数据盘和带宽');
    expect(formatList([], 'zh-CN')).toBe('');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { i18n } from './i18n';
import { NO_DATA_LABELS, noDataRows } from './phases';

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('why "No data"', () => {
  it('names each reason code in English and Simplified Chinese', async () => {
    expect(NO_DATA_LABELS.no_metrics).toBe('No metrics (running, no samples)');
    expect(NO_DATA_LABELS.stopped).toBe('Stopped (not running, not billed)');
    expect(NO_DATA_LABELS.not_analysed).toBe('Not analysed yet (catches up hourly)');
    await i18n.changeLanguage('zh-CN');
    expect(NO_DATA_LABELS.no_metrics).toBe('无监控数据（运行中，无采样）');
    expect(NO_DATA_LABELS.stopped).toBe('已关机（未运行、未计费）');
    expect(NO_DATA_LABELS.not_analysed).toBe('尚未分析（每小时补上）');
  });

  it('lists only the reasons with minutes or money, in display order', () => {
    const rows = noDataRows([
      { reason: 'not_analysed', minutes: 30, gpu_hours: '0.5000', cost: '1.00' },
      { reason: 'stopped', minutes: 0, gpu_hours: '0.0000', cost: '0.00' },
      { reason: 'no_metrics', minutes: 0, gpu_hours: '0.0000', cost: '0.02' },
    ]);
    expect(rows.map((r) => r.reason)).toEqual(['no_metrics', 'not_analysed']);
    expect(noDataRows(undefined)).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { i18n } from '../../i18n';
import { figureLabel, figureValue } from './labels';

describe('figureLabel', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it("names a price's nested parts in the reader's language and keeps the bill's component codes", async () => {
    await i18n.changeLanguage('zh-CN');
    expect(figureLabel('price.runtime_components.v_cvm_gpu.cost')).toBe('每小时价格 · 运行计费组件 · v_cvm_gpu · 费用');
    expect(figureLabel('price.persistent_hourly')).toBe('每小时价格 · 停机仍计费部分');
    // The options a commitment was chosen from are named by their kind, their figures as figures.
    expect(figureLabel('options.subscription.break_even_uptime_pct')).toBe(
      `可选方案 · ${i18n.t('recommendations.kind.subscription')} · 盈亏平衡开机率（%）`,
    );
    expect(figureLabel('options.subscription.monthly')).toBe(`可选方案 · ${i18n.t('recommendations.kind.subscription')} · 每月费用`);
    await i18n.changeLanguage('en');
    expect(figureLabel('price.persistent_components.v_cvm_rootdisk.hourly')).toBe(
      `${i18n.t('recommendations.figure.price')} · components billed when stopped · v_cvm_rootdisk · per hour`,
    );
  });

  it('shows a part it has no name for with spaces for underscores', () => {
    expect(figureLabel('price.some_new_part')).toBe(`${i18n.t('recommendations.figure.price')} · some new part`);
  });
});

describe('figureValue', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it("words the API's codes among the values (a price's source, a component's class), in the reader's language", async () => {
    await i18n.changeLanguage('zh-CN');
    expect(figureValue('price.price_source', 'bills')).toBe('账单实付价格');
    expect(figureValue('price.persistent_components.v_cvm_rootdisk.class', 'storage')).toBe('存储（停机后仍计费）');
    await i18n.changeLanguage('en');
    expect(figureValue('price.runtime_components.v_cvm_gpu.class', 'runtime')).toBe('runtime (stops with STOP_CHARGING)');
    // Anything else is shown as the API gave it: numbers, names, a code it does not know.
    expect(figureValue('price.runtime_components.v_cvm_gpu.name', 'GPU')).toBe('GPU');
    expect(figureValue('price.runtime_components.v_cvm_gpu.class', 'ri')).toBe('ri');
    expect(figureValue('observed_hours', '336')).toBe('336');
  });
});

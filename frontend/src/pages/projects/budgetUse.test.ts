import { describe, expect, it } from 'vitest';
import type { Budget } from '../../api/types';
import { budgetUseByProject } from './budgetUse';

function budget(id: number, project: number | null, currency: 'CNY' | 'USD', percentUsed: string): Budget {
  return {
    id,
    name: `b${id}`,
    scope: project ? 'project' : 'organization',
    project,
    amount: '1000.00',
    currency,
    actual_thresholds_pct: [],
    forecast_thresholds_pct: [],
    status: {
      month: '2026-11',
      spent: '0',
      daily_average: '0',
      spent_before_today: '0.00',
      known_purchases: '0.00',
      days_left: '0',
      forecast: '0',
      percent_used: percentUsed,
      forecast_pct: '0',
      thresholds_crossed: [],
      forecast_method: '',
    },
    created_at: '',
    updated_at: '',
  };
}

describe('budgetUseByProject', () => {
  it('keys project budgets by project, preferring the table currency, skipping the organization budget', () => {
    const uses = budgetUseByProject(
      [budget(1, null, 'CNY', '10'), budget(2, 7, 'USD', '20'), budget(3, 7, 'CNY', '45.5'), budget(4, 8, 'USD', 'x')],
      'CNY',
    );
    expect([...uses.keys()].sort()).toEqual([7, 8]);
    expect(uses.get(7)!.budget.id).toBe(3);
    expect(uses.get(7)!.usedPct).toBe(45.5);
    expect(uses.get(8)!.usedPct).toBeNull();
  });
});

/**
 * The Projects table's budget column: the project's monthly budget in its currency, used so far this month.
 * Budgets come from `/budgets` (the usage API may not read them); a project may have several (one per
 * currency): the one in the table's currency is shown, else the first.
 */
import type { Budget } from '../../api/types';

export interface BudgetUse {
  budget: Budget;
  /** Percent of the amount spent this month (the budget's own status), or null if unreadable. */
  usedPct: number | null;
}

export function budgetUseByProject(budgets: readonly Budget[], currency: string): Map<number, BudgetUse> {
  const out = new Map<number, BudgetUse>();
  for (const budget of budgets) {
    if (budget.project == null) continue;
    const known = out.get(budget.project);
    if (known && (known.budget.currency === currency || budget.currency !== currency)) continue;
    const used = Number(budget.status.percent_used);
    out.set(budget.project, { budget, usedPct: Number.isFinite(used) ? used : null });
  }
  return out;
}

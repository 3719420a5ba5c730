/**
 * What the first cost figure on /connect rests on. Until the bills of an instance are in, the analysis
 * prices its hours at the catalog price (`cost_sources.list_price`); once they are, at what the bill
 * says (`cost_sources.bills`). A newcomer should not read a catalog estimate as the bill.
 */

export interface CostSources {
  bills?: number;
  list_price?: number;
  unpriced?: number;
}

export type CostBasis =
  | { kind: 'bills' }
  | { kind: 'catalog' }
  | { kind: 'mixed'; estimated: number; priced: number }
  | { kind: 'none' };

export function costBasis(sources: CostSources | null | undefined): CostBasis & { unpriced: number } {
  const bills = sources?.bills ?? 0;
  const catalog = sources?.list_price ?? 0;
  const unpriced = sources?.unpriced ?? 0;
  if (bills > 0 && catalog > 0) return { kind: 'mixed', estimated: catalog, priced: bills + catalog, unpriced };
  if (catalog > 0) return { kind: 'catalog', unpriced };
  if (bills > 0) return { kind: 'bills', unpriced };
  return { kind: 'none', unpriced };
}

import { describe, expect, it } from 'vitest';
import { costBasis } from './costBasis';

describe('costBasis', () => {
  it('says a figure priced only from the catalog is an estimate, one only from bills is not', () => {
    expect(costBasis({ bills: 0, list_price: 12, unpriced: 0 })).toEqual({ kind: 'catalog', unpriced: 0 });
    expect(costBasis({ bills: 12, list_price: 0, unpriced: 0 })).toEqual({ kind: 'bills', unpriced: 0 });
  });

  it('counts the estimated instances of a partly billed figure, and the unpriced ones', () => {
    expect(costBasis({ bills: 9, list_price: 3, unpriced: 1 })).toEqual({ kind: 'mixed', estimated: 3, priced: 12, unpriced: 1 });
  });

  it('has no basis without priced instances', () => {
    expect(costBasis(undefined)).toEqual({ kind: 'none', unpriced: 0 });
    expect(costBasis({ bills: 0, list_price: 0, unpriced: 2 })).toEqual({ kind: 'none', unpriced: 2 });
  });
});

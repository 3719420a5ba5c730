import { describe, expect, it } from 'vitest';
import {
  ariaSort,
  DEFAULT_ORDERING,
  formatUtil,
  nextOrdering,
  parseOrdering,
  readTableState,
  usageQuery,
  withFilter,
  withOrdering,
  withoutFilters,
  withPage,
} from './usageState';

describe('sorting', () => {
  it('starts numbers descending and names ascending, and flips on a second click', () => {
    expect(nextOrdering('-cost', 'waste')).toBe('-waste');
    expect(nextOrdering('-waste', 'waste')).toBe('waste');
    expect(nextOrdering('waste', 'waste')).toBe('-waste');
    expect(nextOrdering('-cost', 'util')).toBe('-util');
    expect(nextOrdering('-cost', 'name')).toBe('name');
    expect(nextOrdering('name', 'name')).toBe('-name');
  });

  it('states the direction for aria-sort', () => {
    expect(ariaSort('-waste', 'waste')).toBe('descending');
    expect(ariaSort('waste', 'waste')).toBe('ascending');
    expect(ariaSort('-waste', 'cost')).toBe('none');
  });

  it('ignores an ordering it does not know', () => {
    expect(parseOrdering('-price')).toBe(DEFAULT_ORDERING);
    expect(parseOrdering(null)).toBe(DEFAULT_ORDERING);
    expect(parseOrdering('util')).toBe('util');
  });
});

describe('URL state', () => {
  it('reads ordering, page and filters, dropping malformed values', () => {
    const state = readTableState(
      new URLSearchParams('ordering=-waste&page=3&region=ap-shanghai&util_min=20&util_max=abc&tag=team&search=%20gpu%20'),
    );
    expect(state).toEqual({ ordering: '-waste', page: 3, filters: { region: 'ap-shanghai', util_min: '20', search: 'gpu' } });
    expect(readTableState(new URLSearchParams('page=-1')).page).toBe(1);
    expect(readTableState(new URLSearchParams('page=1.5')).page).toBe(1);
    expect(readTableState(new URLSearchParams('tag=team:nlp')).filters).toEqual({ tag: 'team:nlp' });
  });

  it('goes back to page 1 on a new filter or ordering and keeps the date range', () => {
    const params = new URLSearchParams('range=30d&page=4&ordering=-util');
    expect(withFilter(params, 'state', 'RUNNING').toString()).toBe('range=30d&ordering=-util&state=RUNNING');
    expect(withFilter(new URLSearchParams('state=RUNNING'), 'state', '').toString()).toBe('');
    expect(withOrdering(params, '-waste').toString()).toBe('range=30d&ordering=-waste');
    expect(withOrdering(params, DEFAULT_ORDERING).toString()).toBe('range=30d');
    expect(withPage(params, 1).toString()).toBe('range=30d&ordering=-util');
    expect(withPage(params, 2).get('page')).toBe('2');
    expect(withoutFilters(new URLSearchParams('range=7d&region=x&search=y&ordering=name')).toString()).toBe(
      'range=7d&ordering=name',
    );
  });

  it('builds the API query with inclusive local days', () => {
    const state = readTableState(new URLSearchParams('ordering=-waste&gpu_model=NVIDIA%20T4'));
    expect(usageQuery(state, { from: '2026-11-01', to: '2026-11-07' })).toEqual({
      start: '2026-11-01',
      end: '2026-11-07',
      ordering: '-waste',
      page: 1,
      page_size: 50,
      gpu_model: 'NVIDIA T4',
    });
  });
});

describe('formatting', () => {
  it('formats utilization as whole percents and no data as a dash', () => {
    expect(formatUtil(42.4, 'en')).toBe('42%');
    expect(formatUtil(0, 'en')).toBe('0%');
    expect(formatUtil(null, 'en')).toBe('—');
  });
});

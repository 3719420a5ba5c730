/**
 * The Instances table's state in the URL: sort, filters and page (`?ordering=-waste&region=ap-shanghai&page=2`),
 * so a link shows the same rows. The date range lives beside it (`range`, `from`, `to`; see dateRange.ts).
 */
import { formatPercent } from '../../money';

export const SORT_COLUMNS = ['cost', 'waste', 'util', 'name'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];
export const DEFAULT_ORDERING = '-cost';
export const PAGE_SIZE = 50;

export const FILTER_KEYS = [
  'project',
  'tag',
  'instance_type',
  'gpu_model',
  'charge_type',
  'state',
  'region',
  'util_min',
  'util_max',
  'search',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

export interface TableState {
  ordering: string;
  page: number;
  filters: Filters;
}

const ORDERINGS = new Set(SORT_COLUMNS.flatMap((c) => [c, `-${c}`]));

export function parseOrdering(value: string | null): string {
  return value && ORDERINGS.has(value) ? value : DEFAULT_ORDERING;
}

export function orderingColumn(ordering: string): SortColumn {
  return ordering.replace(/^-/, '') as SortColumn;
}

/**
 * A header click: the same column flips direction; another column starts descending for numbers (the
 * biggest spender first) and ascending for names.
 */
export function nextOrdering(current: string, column: SortColumn): string {
  if (orderingColumn(current) === column) return current.startsWith('-') ? column : `-${column}`;
  return column === 'name' ? 'name' : `-${column}`;
}

export function ariaSort(ordering: string, column: SortColumn): 'ascending' | 'descending' | 'none' {
  if (orderingColumn(ordering) !== column) return 'none';
  return ordering.startsWith('-') ? 'descending' : 'ascending';
}

function isPercent(value: string): boolean {
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 100;
}

/** What the URL asks for; anything malformed (a bad page, an unknown ordering) falls back to the default. */
export function readTableState(params: URLSearchParams): TableState {
  const filters: Filters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (!value) continue;
    if ((key === 'util_min' || key === 'util_max') && !isPercent(value)) continue;
    if (key === 'tag' && !/^[^\s:,=]+:.+$/.test(value)) continue;
    filters[key] = value;
  }
  const page = Number(params.get('page'));
  return {
    ordering: parseOrdering(params.get('ordering')),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    filters,
  };
}

/** Another filter value: back to page 1 (the old page may not exist any more). */
export function withFilter(params: URLSearchParams, key: FilterKey, value: string): URLSearchParams {
  const next = new URLSearchParams(params);
  if (value.trim()) next.set(key, value.trim());
  else next.delete(key);
  next.delete('page');
  return next;
}

export function withoutFilters(params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const key of FILTER_KEYS) next.delete(key);
  next.delete('page');
  return next;
}

/** Another ordering: back to page 1; the default ordering keeps the URL clean. */
export function withOrdering(params: URLSearchParams, ordering: string): URLSearchParams {
  const next = new URLSearchParams(params);
  if (ordering === DEFAULT_ORDERING) next.delete('ordering');
  else next.set('ordering', ordering);
  next.delete('page');
  return next;
}

export function withPage(params: URLSearchParams, page: number): URLSearchParams {
  const next = new URLSearchParams(params);
  if (page <= 1) next.delete('page');
  else next.set('page', String(page));
  return next;
}

/** The API's query: the range's days (both inclusive), the filters, the ordering and the page. */
export function usageQuery(state: TableState, range: { from: string; to: string }): Record<string, string | number> {
  return {
    start: range.from,
    end: range.to,
    ordering: state.ordering,
    page: state.page,
    page_size: PAGE_SIZE,
    ...state.filters,
  };
}

/** A GPU utilization average in percent (the API's 0–100), e.g. "42%"; no data is "—". */
export function formatUtil(pct: number | null | undefined, locale?: string): string {
  if (pct == null) return '—';
  return formatPercent(pct / 100, 0, locale);
}

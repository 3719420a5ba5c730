import { keepPreviousData, useQuery, useQueryClient, type Query } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api/client';
import type { PageQuery } from './api/endpoints';
import type { Page } from './api/types';
import type { QueryKey } from './data/keys';

export interface PaginatedList<T> {
  items: T[];
  count: number;
  page: number;
  pageSize: number;
  loading: boolean;
  error: ApiError | null;
  setPage: (page: number) => void;
  reload: () => void;
  /** Replace items in the cached page (after a PATCH) without a round-trip. */
  update: (fn: (items: T[]) => T[]) => void;
}

function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'unknown', err instanceof Error ? err.message : String(err));
}

export interface ListOptions<T> {
  /** Polls the page every so many ms while this returns a number (e.g. while a sync is pending). */
  refetchInterval?: (items: T[]) => number | false;
}

/**
 * One page of a list endpoint, cached by TanStack Query under `key` + the page. `key` names what is
 * listed (the resource and its filters): when it changes the list goes back to page 1. While the next
 * page loads the previous one stays on screen.
 */
export function usePaginatedList<T>(
  key: QueryKey,
  fetchPage: (q: PageQuery, signal: AbortSignal) => Promise<Page<T>>,
  pageSize = 20,
  options: ListOptions<T> = {},
): PaginatedList<T> {
  const queryClient = useQueryClient();
  const keyText = JSON.stringify(key);
  const [pageState, setPageState] = useState({ key: keyText, page: 1 });
  // Another filter starts on page 1, and so does coming back to an earlier one (React's pattern for state
  // that follows a prop: set during render, re-rendered before anything is painted).
  if (pageState.key !== keyText) setPageState({ key: keyText, page: 1 });
  const page = pageState.key === keyText ? pageState.page : 1;
  const setPage = useCallback((next: number) => setPageState({ key: keyText, page: next }), [keyText]);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const intervalRef = useRef(options.refetchInterval);
  intervalRef.current = options.refetchInterval;
  const queryKey = [...key, { page, pageSize }];

  const query = useQuery({
    queryKey,
    queryFn: ({ signal }) => fetchRef.current({ page, pageSize }, signal),
    placeholderData: keepPreviousData,
    refetchInterval: (q: Query<Page<T>, Error, Page<T>, readonly unknown[]>) =>
      intervalRef.current?.(q.state.data?.results ?? []) ?? false,
  });

  // A page past the end (e.g. after deleting the last row of the last page): step back.
  const result = query.isPlaceholderData ? undefined : query.data;
  const notFound = query.error instanceof ApiError && query.error.status === 404;
  useEffect(() => {
    if (result && result.results.length === 0 && page > 1 && result.count > 0) {
      setPage(Math.max(1, Math.ceil(result.count / pageSize)));
    } else if (notFound && page > 1) {
      setPage(page - 1);
    }
  }, [result, notFound, page, pageSize, setPage]);

  const reload = useCallback(() => void queryClient.invalidateQueries({ queryKey: key }), [queryClient, keyText]);
  const update = useCallback(
    (fn: (items: T[]) => T[]) =>
      queryClient.setQueryData<Page<T>>([...key, { page, pageSize }], (old) => (old ? { ...old, results: fn(old.results) } : old)),
    [queryClient, keyText, page, pageSize],
  );

  return {
    items: query.data?.results ?? [],
    count: query.data?.count ?? 0,
    page,
    pageSize,
    loading: query.isFetching,
    error: query.error && !query.isFetching ? toApiError(query.error) : null,
    setPage,
    reload,
    update,
  };
}

export interface ApiData<T> {
  /** The answer for the current `key`; null while it loads or after an error. */
  data: T | null;
  loading: boolean;
  error: ApiError | null;
  reload: () => void;
}

export interface ApiDataOptions<T> {
  /** Polls every so many ms while this returns a number (given the last answer, null before one). */
  refetchInterval?: (data: T | null) => number | false;
  /** False: no request (e.g. until an id is known). */
  enabled?: boolean;
}

/**
 * One GET, cached by TanStack Query under `key`. When `key` changes the new answer is fetched and the
 * previous one is no longer returned; a retry after an error shows the loading state again.
 */
export function useApiData<T>(
  key: QueryKey,
  fetchData: (signal: AbortSignal) => Promise<T>,
  options: ApiDataOptions<T> = {},
): ApiData<T> {
  const fetchRef = useRef(fetchData);
  fetchRef.current = fetchData;
  const intervalRef = useRef(options.refetchInterval);
  intervalRef.current = options.refetchInterval;
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => fetchRef.current(signal),
    enabled: options.enabled ?? true,
    refetchInterval: (q: Query<T, Error, T, readonly unknown[]>) => intervalRef.current?.(q.state.data ?? null) ?? false,
  });
  const retrying = query.isError && query.isFetching;
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  return {
    data: query.data ?? null,
    error: query.error && !retrying ? toApiError(query.error) : null,
    loading: query.isPending || retrying,
    reload,
  };
}

/** Calls `fn` every `everyMs` while `active`; the interval is cleared when inactive or unmounted. */
export function useInterval(fn: () => void, everyMs: number, active: boolean): void {
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => {
    if (!active) return undefined;
    const id = setInterval(() => fnRef.current(), everyMs);
    return () => clearInterval(id);
  }, [everyMs, active]);
}

/** Re-renders every `everyMs`, so relative times ("5 minutes ago") stay true on a page left open. */
export function useTick(everyMs = 30_000): void {
  const [, setTick] = useState(0);
  useInterval(() => setTick((n) => n + 1), everyMs, true);
}

export interface RowActionOptions {
  /** False when the action already updated its row in place, so the list need not be fetched again. */
  reload?: boolean;
}

export interface RowAction {
  /** The row whose action is in flight: only its controls are disabled. */
  busyId: number | null;
  error: string | null;
  notice: string | null;
  setNotice: (notice: string | null) => void;
  run: (id: number, action: () => Promise<unknown>, successMessage: string, options?: RowActionOptions) => Promise<void>;
}

/**
 * The buttons on a list's rows (revoke, remove, change a role): `run` clears the last message, marks the row
 * busy while `action` runs, then shows `successMessage` and reloads the list, or shows the action's error.
 */
export function useRowAction(reloadList: () => void): RowAction {
  const [busyId, setBusyId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const run = useCallback(
    async (id: number, action: () => Promise<unknown>, successMessage: string, { reload = true }: RowActionOptions = {}) => {
      setBusyId(id);
      setError(null);
      setNotice(null);
      try {
        await action();
        setNotice(successMessage);
        if (reload) reloadList();
      } catch (err) {
        setError(toApiError(err).message);
      } finally {
        setBusyId(null);
      }
    },
    [reloadList],
  );

  return { busyId, error, notice, setNotice, run };
}

export { toApiError };

import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api/client';
import type { PageQuery } from './api/endpoints';
import type { Page } from './api/types';

export interface PaginatedList<T> {
  items: T[];
  count: number;
  page: number;
  pageSize: number;
  loading: boolean;
  error: ApiError | null;
  setPage: (page: number) => void;
  reload: () => void;
  /** Replace one item in place (after a PATCH) without a round-trip. */
  update: (fn: (items: T[]) => T[]) => void;
}

function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'unknown', err instanceof Error ? err.message : String(err));
}

/**
 * One page of a list endpoint. `key` names what is listed (e.g. the filters): when it changes the
 * list goes back to page 1 and reloads.
 */
export function usePaginatedList<T>(
  fetchPage: (q: PageQuery, signal: AbortSignal) => Promise<Page<T>>,
  pageSize = 20,
  key = '',
): PaginatedList<T> {
  const [pageState, setPageState] = useState({ key, page: 1 });
  const page = pageState.key === key ? pageState.page : 1;
  const setPage = useCallback((next: number) => setPageState({ key, page: next }), [key]);
  const [data, setData] = useState<{ items: T[]; count: number }>({ items: [], count: 0 });
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError | null>(null);
  const [nonce, setNonce] = useState(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    fetchRef
      .current({ page, pageSize }, controller.signal)
      .then((result) => {
        if (controller.signal.aborted) return;
        // A page past the end (e.g. after deleting the last row of the last page): step back.
        if (result.results.length === 0 && page > 1 && result.count > 0) {
          setPage(Math.max(1, Math.ceil(result.count / pageSize)));
          return;
        }
        setData({ items: result.results, count: result.count });
        setLoading(false);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        const apiErr = toApiError(err);
        if (apiErr.status === 404 && page > 1) {
          setPage(page - 1);
          return;
        }
        setError(apiErr);
        setLoading(false);
      });
    return () => controller.abort();
  }, [page, pageSize, nonce, key, setPage]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const update = useCallback((fn: (items: T[]) => T[]) => setData((d) => ({ ...d, items: fn(d.items) })), []);

  return { items: data.items, count: data.count, page, pageSize, loading, error, setPage, reload, update };
}

export interface ApiData<T> {
  /** The answer for the current `key`; null while it loads or after an error. */
  data: T | null;
  loading: boolean;
  error: ApiError | null;
  reload: () => void;
}

/**
 * One GET. `key` names what is fetched (e.g. the id and period): when it changes the request is made again,
 * the previous one is aborted and the previous answer is no longer returned.
 */
export function useApiData<T>(fetchData: (signal: AbortSignal) => Promise<T>, key: string): ApiData<T> {
  const [state, setState] = useState<{ key: string; data: T | null; error: ApiError | null } | null>(null);
  const [nonce, setNonce] = useState(0);
  const fetchRef = useRef(fetchData);
  fetchRef.current = fetchData;

  useEffect(() => {
    const controller = new AbortController();
    fetchRef
      .current(controller.signal)
      .then((data) => {
        if (!controller.signal.aborted) setState({ key, data, error: null });
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setState({ key, data: null, error: toApiError(err) });
      });
    return () => controller.abort();
  }, [key, nonce]);

  const reload = useCallback(() => {
    setState(null);
    setNonce((n) => n + 1);
  }, []);
  const current = state && state.key === key ? state : null;
  return {
    data: current?.data ?? null,
    error: current?.error ?? null,
    loading: current === null || (current.data === null && current.error === null),
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

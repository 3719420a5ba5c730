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

export function usePaginatedList<T>(
  fetchPage: (q: PageQuery, signal: AbortSignal) => Promise<Page<T>>,
  pageSize = 20,
): PaginatedList<T> {
  const [page, setPage] = useState(1);
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
  }, [page, pageSize, nonce]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const update = useCallback((fn: (items: T[]) => T[]) => setData((d) => ({ ...d, items: fn(d.items) })), []);

  return { items: data.items, count: data.count, page, pageSize, loading, error, setPage, reload, update };
}

export { toApiError };

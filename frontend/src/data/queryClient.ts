import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client';

/** A 4xx says the request itself is wrong (or the session is gone): asking again cannot help. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

export interface QueryClientOptions {
  /** Tests turn retries off, so an error answer shows at once. */
  retry?: boolean;
}

/**
 * The one cache of server answers. An answer stays fresh for 30 s (a page opened again within that
 * shows it without a request); server errors are retried twice with TanStack's backoff.
 */
export function createQueryClient({ retry = true }: QueryClientOptions = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        retry: retry ? shouldRetry : false,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}

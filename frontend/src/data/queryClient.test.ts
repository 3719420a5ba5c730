import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { createQueryClient, shouldRetry } from './queryClient';

describe('query retries', () => {
  it('retries a server error or a lost connection twice, then gives up', () => {
    const serverError = new ApiError(503, 'unavailable', 'Service unavailable');
    expect(shouldRetry(0, serverError)).toBe(true);
    expect(shouldRetry(1, serverError)).toBe(true);
    expect(shouldRetry(2, serverError)).toBe(false);
    expect(shouldRetry(0, new TypeError('Failed to fetch'))).toBe(true);
  });

  it('never retries a 4xx: the request itself is wrong or the session is gone', () => {
    for (const status of [400, 401, 403, 404]) {
      expect(shouldRetry(0, new ApiError(status, 'x', 'x'))).toBe(false);
    }
  });

  it('lets tests turn retries off', () => {
    expect(createQueryClient({ retry: false }).getDefaultOptions().queries?.retry).toBe(false);
    expect(createQueryClient().getDefaultOptions().queries?.retry).toBe(shouldRetry);
  });
});

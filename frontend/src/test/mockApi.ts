import { vi } from 'vitest';
import type { Me, Org } from '../api/types';

export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
  credentials: RequestCredentials | undefined;
}

export interface MockResponse {
  status?: number;
  body?: unknown;
}

type Handler = (call: RecordedCall) => MockResponse | Promise<MockResponse>;

/**
 * Stubs global fetch with a tiny router: keys are "METHOD /path" (no query string).
 * Unmatched requests answer 404 in the API's error format, so a test fails loudly on a wrong URL.
 */
export function mockApi(routes: Record<string, Handler | MockResponse>) {
  const calls: RecordedCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key.toLowerCase()] = value;
    });
    const call: RecordedCall = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      credentials: init.credentials,
    };
    calls.push(call);
    const route = routes[`${method} ${url.pathname}`];
    const result: MockResponse = route
      ? typeof route === 'function'
        ? await route(call)
        : route
      : { status: 404, body: { error: { code: 'not_found', message: `No mock for ${method} ${url.pathname}`, fields: {} } } };
    const status = result.status ?? 200;
    const text = result.body === undefined || status === 204 ? null : JSON.stringify(result.body);
    return new Response(text, { status, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    fetchMock,
    find: (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path),
  };
}

export const ACME: Org = { id: 1, slug: 'acme', name: 'Acme AI', timezone: 'Asia/Shanghai', currency: 'CNY', role: 'owner' };
export const BETA: Org = { id: 2, slug: 'beta', name: 'Beta Labs', timezone: 'UTC', currency: 'USD', role: 'viewer' };

export function makeMe(overrides: Partial<Me> = {}): Me {
  return {
    id: 7,
    email: 'lin@acme.example',
    name: 'Lin Wei',
    language: 'en',
    organization: ACME,
    organizations: [ACME],
    caught_mail_dir: '',
    ...overrides,
  };
}

export const NOT_AUTHENTICATED: MockResponse = {
  status: 403,
  body: { error: { code: 'not_authenticated', message: 'Authentication credentials were not provided.', fields: {} } },
};

export const CSRF: MockResponse = { body: { csrfToken: 'csrf-from-endpoint' } };

export const emptyPage = { count: 0, next: null, previous: null, results: [] };

/** The Overview of an organization without a connected cloud account: the welcome is shown. */
export const EMPTY_OVERVIEW: Record<string, MockResponse> = {
  'GET /api/v1/cloud-accounts': { body: emptyPage },
};

const zeroPhase = { minutes: 0, gpu_hours: '0.0000', cost: '0.00' };

/** GET /api/v1/analysis/summary for an organization without data (no GPU instance in the period). */
export const EMPTY_SUMMARY: MockResponse = {
  body: {
    start: '2026-10-20T08:00:00Z',
    end: '2026-10-27T08:00:00Z',
    group_by: 'project',
    currency: 'CNY',
    totals: {
      instance_count: 0,
      currency: 'CNY',
      gpu_hours: '0.0000',
      cost: '0.00',
      idle_cost: '0.00',
      data_bound_cost: '0.00',
      wasted_cost: '0.00',
      unknown_cost: '0.00',
      phases: {
        unknown: zeroPhase,
        idle: zeroPhase,
        data_processing: zeroPhase,
        evaluation: zeroPhase,
        training: zeroPhase,
      },
      cost_sources: { bills: 0, list_price: 0, unpriced: 0 },
    },
    groups: [],
  },
};

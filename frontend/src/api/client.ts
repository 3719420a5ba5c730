/**
 * Small fetch wrapper for the GPU Ledger API.
 *
 * - Same-origin cookies (Django session).
 * - Unsafe methods carry X-CSRFToken. The CSRF cookie is HttpOnly (no script, ours or injected, reads it):
 *   the token comes from the page (Django writes it into index.html as <meta name="csrf-token">), and once
 *   a sign-in rotated it, from GET /api/v1/auth/csrf (which returns {"csrfToken": ...}).
 * - Every error is turned into an ApiError following the API's single error format
 *   {"error": {"code", "message", "fields": {field: [messages]}}}.
 * - 401/403 with code `not_authenticated` calls the registered handler (the app redirects to /login).
 */

import { i18n } from '../i18n';

export const API_BASE = '/api/v1';
const CSRF_META = 'meta[name="csrf-token"]';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: FieldErrors;

  constructor(status: number, code: string, message: string, fields: FieldErrors = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
  }

  /** First message for a field, if any. */
  field(name: string): string | undefined {
    return this.fields[name]?.[0];
  }
}

export function isNotAuthenticated(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    (err.status === 401 || err.status === 403) &&
    err.code === 'not_authenticated'
  );
}

/**
 * Told the sequence number of a request that found no session. A request sent before a sign-in
 * finished can answer 401 after it (the sign-up link opens the page and signs in at once): the
 * handler compares numbers so such a late answer does not sign the new session out.
 */
let unauthenticatedHandler: ((requestSeq: number) => void) | null = null;
let lastRequestSeq = 0;

/** Register what happens when the session is gone (the app navigates to /login). */
export function setUnauthenticatedHandler(handler: ((requestSeq: number) => void) | null): void {
  unauthenticatedHandler = handler;
}

/** The sequence number of the latest request sent; every later request gets a higher one. */
export function latestRequestSeq(): number {
  return lastRequestSeq;
}

let csrfToken: string | null = null;

/** The token the page was served with, if it has one (the Vite dev server's page has none). */
function pageCsrfToken(): string | null {
  if (typeof document === 'undefined') return null;
  return document.querySelector<HTMLMetaElement>(CSRF_META)?.content || null;
}

/**
 * Forget the token: Django rotates it on login and logout. The page's token is removed with it, since it
 * is the old one; the next unsafe request asks /auth/csrf.
 */
export function resetCsrfToken(): void {
  csrfToken = null;
  if (typeof document !== 'undefined') document.querySelector(CSRF_META)?.remove();
}

async function fetchCsrfToken(): Promise<string> {
  const response = await safeFetch(`${API_BASE}/auth/csrf`, {
    method: 'GET',
    credentials: 'same-origin',
    headers: { Accept: 'application/json', 'Accept-Language': i18n.language },
  });
  if (!response.ok) throw await toApiError(response);
  const body = (await parseJson(response)) as { csrfToken?: unknown } | null;
  const token = typeof body?.csrfToken === 'string' && body.csrfToken ? body.csrfToken : null;
  if (!token) throw new ApiError(response.status, 'csrf_unavailable', i18n.t('apiError.csrf'));
  csrfToken = token;
  return token;
}

/** The CSRF token to send: the one in use, else the page's, else one fetched from /auth/csrf. */
export async function ensureCsrfToken(): Promise<string> {
  csrfToken ??= pageCsrfToken();
  return csrfToken ?? (await fetchCsrfToken());
}

async function safeFetch(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    throw new ApiError(0, 'network_error', i18n.t('apiError.network'));
  }
}

async function parseJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function fallbackMessage(status: number): string {
  if (status === 401 || status === 403) return i18n.t('apiError.forbidden');
  if (status === 404) return i18n.t('apiError.notFound');
  if (status === 429) return i18n.t('apiError.throttled');
  if (status >= 500) return i18n.t('apiError.server');
  return i18n.t('apiError.other', { status });
}

async function toApiError(response: Response): Promise<ApiError> {
  const body = (await parseJson(response)) as { error?: Record<string, unknown> } | null;
  const err = body && typeof body === 'object' ? body.error : undefined;
  if (err && typeof err === 'object') {
    const code = typeof err.code === 'string' ? err.code : `http_${response.status}`;
    const message = typeof err.message === 'string' && err.message ? err.message : fallbackMessage(response.status);
    const fields: FieldErrors = {};
    if (err.fields && typeof err.fields === 'object') {
      for (const [key, value] of Object.entries(err.fields as Record<string, unknown>)) {
        if (Array.isArray(value)) fields[key] = value.map(String);
        else if (value != null) fields[key] = [String(value)];
      }
    }
    return new ApiError(response.status, code, message, fields);
  }
  return new ApiError(response.status, `http_${response.status}`, fallbackMessage(response.status));
}

function isCsrfFailure(err: ApiError): boolean {
  return err.status === 403 && (err.code === 'csrf_failed' || /csrf/i.test(err.message));
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  signal?: AbortSignal;
}

export function buildUrl(path: string, query?: RequestOptions['query']): string {
  const url = path.startsWith('/') ? path : `${API_BASE}/${path}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${url}${url.includes('?') ? '&' : '?'}${qs}` : url;
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = (options.method ?? 'GET').toUpperCase();
  const url = buildUrl(path, options.query);
  const seq = ++lastRequestSeq;

  const send = async (): Promise<Response> => {
    // The API renders its words (titles, alert texts, labels) in the language the page shows.
    const headers: Record<string, string> = { Accept: 'application/json', 'Accept-Language': i18n.language };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (!SAFE_METHODS.has(method)) headers['X-CSRFToken'] = await ensureCsrfToken();
    return safeFetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
      signal: options.signal,
    });
  };

  let response = await send();
  if (!response.ok) {
    let error = await toApiError(response);
    if (!SAFE_METHODS.has(method) && isCsrfFailure(error)) {
      // Stale token (e.g. rotated by a login in another tab): fetch a fresh one and retry once.
      resetCsrfToken();
      await fetchCsrfToken();
      response = await send();
      if (response.ok) return (await parseJson(response)) as T;
      error = await toApiError(response);
    }
    if (isNotAuthenticated(error) && unauthenticatedHandler) unauthenticatedHandler(seq);
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await parseJson(response)) as T;
}

export const api = {
  get: <T>(path: string, query?: RequestOptions['query'], signal?: AbortSignal) =>
    apiRequest<T>(path, { method: 'GET', query, signal }),
  post: <T>(path: string, body?: unknown) => apiRequest<T>(path, { method: 'POST', body: body ?? {} }),
  patch: <T>(path: string, body: unknown) => apiRequest<T>(path, { method: 'PATCH', body }),
  put: <T>(path: string, body: unknown) => apiRequest<T>(path, { method: 'PUT', body }),
  delete: <T = void>(path: string) => apiRequest<T>(path, { method: 'DELETE' }),
};

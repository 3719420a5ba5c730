import { describe, expect, it, vi } from 'vitest';
import { ApiError, api, resetCsrfToken, setUnauthenticatedHandler } from './client';
import { CSRF, mockApi, NOT_AUTHENTICATED } from '../test/mockApi';
import { i18n } from '../i18n';

describe('api client', () => {
  it('fetches a CSRF token first and sends it as X-CSRFToken on POST', async () => {
    const server = mockApi({
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/invitations': (call) => ({ status: 201, body: { id: 3, ...(call.body as object) } }),
    });

    const result = await api.post<{ id: number; email: string }>('/api/v1/invitations', { email: 'a@b.c', role: 'viewer' });

    expect(result).toEqual({ id: 3, email: 'a@b.c', role: 'viewer' });
    expect(server.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/v1/auth/csrf',
      'POST /api/v1/invitations',
    ]);
    const post = server.find('POST', '/api/v1/invitations')[0]!;
    expect(post.headers['x-csrftoken']).toBe('csrf-from-endpoint');
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.credentials).toBe('same-origin');
    expect(server.find('GET', '/api/v1/auth/csrf')[0]!.credentials).toBe('same-origin');
  });

  it('asks the API for the language the page shows', async () => {
    const server = mockApi({ 'GET /api/v1/me': { status: 200, body: {} } });
    await i18n.changeLanguage('zh-CN');
    try {
      await api.get('/api/v1/me');
    } finally {
      await i18n.changeLanguage('en');
    }
    await api.get('/api/v1/me');
    expect(server.find('GET', '/api/v1/me').map((c) => c.headers['accept-language'])).toEqual(['zh-CN', 'en']);
  });

  it("sends the page's token (Django's <meta name=\"csrf-token\">), without asking the endpoint", async () => {
    document.head.insertAdjacentHTML('beforeend', '<meta name="csrf-token" content="token-of-the-page">');
    const server = mockApi({ 'DELETE /api/v1/api-keys/5': { status: 204 }, 'DELETE /api/v1/api-keys/6': { status: 204 } });

    await api.delete('/api/v1/api-keys/5');
    await api.delete('/api/v1/api-keys/6');

    expect(server.find('GET', '/api/v1/auth/csrf')).toHaveLength(0);
    expect(server.find('DELETE', '/api/v1/api-keys/5')[0]!.headers['x-csrftoken']).toBe('token-of-the-page');
    expect(server.find('DELETE', '/api/v1/api-keys/6')[0]!.headers['x-csrftoken']).toBe('token-of-the-page');
  });

  it("asks the endpoint once a sign-in rotated the token: the page's is the old one", async () => {
    document.head.insertAdjacentHTML('beforeend', '<meta name="csrf-token" content="token-of-the-page">');
    const server = mockApi({ 'GET /api/v1/auth/csrf': CSRF, 'DELETE /api/v1/api-keys/5': { status: 204 } });

    resetCsrfToken();
    await api.delete('/api/v1/api-keys/5');

    expect(server.find('GET', '/api/v1/auth/csrf')).toHaveLength(1);
    expect(server.find('DELETE', '/api/v1/api-keys/5')[0]!.headers['x-csrftoken']).toBe('csrf-from-endpoint');
    expect(document.querySelector('meta[name="csrf-token"]')).toBeNull();
  });

  it('never reads a csrftoken cookie (the real one is HttpOnly; a readable one is not ours)', async () => {
    document.cookie = 'csrftoken=planted-by-a-script; path=/';
    const server = mockApi({ 'GET /api/v1/auth/csrf': CSRF, 'DELETE /api/v1/api-keys/5': { status: 204 } });

    await api.delete('/api/v1/api-keys/5');

    expect(server.find('DELETE', '/api/v1/api-keys/5')[0]!.headers['x-csrftoken']).toBe('csrf-from-endpoint');
  });

  it('does not send X-CSRFToken on GET', async () => {
    const server = mockApi({ 'GET /api/v1/members': { body: { count: 0, next: null, previous: null, results: [] } } });
    await api.get('/api/v1/members', { page: 2, page_size: 10 });
    const call = server.calls[0]!;
    expect(call.headers['x-csrftoken']).toBeUndefined();
    expect(call.query.get('page')).toBe('2');
    expect(call.query.get('page_size')).toBe('10');
  });

  it('turns the error envelope into an ApiError with message and field errors', async () => {
    mockApi({
      'GET /api/v1/auth/csrf': CSRF,
      'POST /api/v1/api-keys': {
        status: 400,
        body: { error: { code: 'invalid', message: 'Check the highlighted fields.', fields: { name: ['This field is required.'] } } },
      },
    });

    const err = await api.post('/api/v1/api-keys', { name: '' }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ApiError);
    const apiErr = err as ApiError;
    expect(apiErr.status).toBe(400);
    expect(apiErr.code).toBe('invalid');
    expect(apiErr.message).toBe('Check the highlighted fields.');
    expect(apiErr.field('name')).toBe('This field is required.');
  });

  it('calls the unauthenticated handler on not_authenticated', async () => {
    mockApi({ 'GET /api/v1/members': NOT_AUTHENTICATED });
    const handler = vi.fn();
    setUnauthenticatedHandler(handler);

    await expect(api.get('/api/v1/members')).rejects.toMatchObject({ code: 'not_authenticated', status: 403 });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('does not treat a permission error as a lost session', async () => {
    mockApi({
      'GET /api/v1/members': { status: 403, body: { error: { code: 'permission_denied', message: 'Not allowed.', fields: {} } } },
    });
    const handler = vi.fn();
    setUnauthenticatedHandler(handler);

    await expect(api.get('/api/v1/members')).rejects.toMatchObject({ message: 'Not allowed.' });
    expect(handler).not.toHaveBeenCalled();
  });
});

import { api, resetCsrfToken } from './client';
import type { ApiKey, CreatedApiKey, Invitation, Me, Member, Page, Role, Scope } from './types';

export interface PageQuery {
  page: number;
  pageSize: number;
}

const pageParams = ({ page, pageSize }: PageQuery) => ({ page, page_size: pageSize });

export const authApi = {
  async login(email: string, password: string): Promise<Me> {
    const me = await api.post<Me>('/api/v1/auth/login', { email, password });
    resetCsrfToken(); // Django rotates the CSRF token on login.
    return me;
  },
  async logout(): Promise<void> {
    await api.post<void>('/api/v1/auth/logout');
    resetCsrfToken();
  },
  me: (signal?: AbortSignal) => api.get<Me>('/api/v1/me', undefined, signal),
  switchOrganization: (slug: string) => api.post<Me>('/api/v1/me/organization', { organization: slug }),
};

export const membersApi = {
  list: (q: PageQuery, signal?: AbortSignal) => api.get<Page<Member>>('/api/v1/members', pageParams(q), signal),
  updateRole: (id: number, role: Role) => api.patch<Member>(`/api/v1/members/${id}`, { role }),
  remove: (id: number) => api.delete(`/api/v1/members/${id}`),
};

export const invitationsApi = {
  list: (q: PageQuery, signal?: AbortSignal) =>
    api.get<Page<Invitation>>('/api/v1/invitations', pageParams(q), signal),
  create: (email: string, role: Role) => api.post<Invitation>('/api/v1/invitations', { email, role }),
  revoke: (id: number) => api.delete(`/api/v1/invitations/${id}`),
};

export const apiKeysApi = {
  list: (q: PageQuery, signal?: AbortSignal) => api.get<Page<ApiKey>>('/api/v1/api-keys', pageParams(q), signal),
  create: (name: string, scope: Scope) => api.post<CreatedApiKey>('/api/v1/api-keys', { name, scope }),
  revoke: (id: number) => api.delete(`/api/v1/api-keys/${id}`),
};

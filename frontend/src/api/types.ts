export type Role = 'owner' | 'admin' | 'lead' | 'finance' | 'viewer';
export type Currency = 'CNY' | 'USD';
export type Scope = 'read' | 'write';

export const ROLES: Role[] = ['owner', 'admin', 'lead', 'finance', 'viewer'];

export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  lead: 'Team lead',
  finance: 'Finance',
  viewer: 'Viewer',
};

export interface Org {
  id: number;
  slug: string;
  name: string;
  timezone: string;
  currency: Currency;
  role: Role;
}

export interface Me {
  id: number;
  email: string;
  name: string;
  organization: Org | null;
  organizations: Org[];
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface UserSummary {
  id: number;
  email: string;
  name: string;
}

export interface Member {
  id: number;
  user: UserSummary;
  role: Role;
  created_at: string;
}

export interface Invitation {
  id: number;
  email: string;
  role: Role;
  /** The contract does not pin the shape: a user object, an e-mail, a name or an id. */
  invited_by: UserSummary | string | number | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  scope: Scope;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKey {
  /** The full secret. Returned once, on creation only. */
  key: string;
}

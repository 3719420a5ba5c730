import type { Role } from './types';

/** Role names in words, in the order a role picker offers them (most rights first). */
export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  lead: 'Team lead',
  finance: 'Finance',
  viewer: 'Viewer',
};

/** Every role the API knows; a Record over the generated Role type fails to compile when one is missing. */
export const ROLES = Object.keys(ROLE_LABELS) as Role[];

/** The role in words; an unknown role (newer API) shows as sent. */
export function roleLabel(role: string | null): string {
  if (role === null) return '—';
  return (ROLE_LABELS as Record<string, string>)[role] ?? role;
}

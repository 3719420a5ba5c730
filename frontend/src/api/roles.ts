import { translatedLabels } from '../i18n';
import type { Role } from './types';

/** Role names in words, in the order a role picker offers them (most rights first). */
const ROLE_ORDER: Record<Role, number> = { owner: 0, admin: 1, lead: 2, finance: 3, viewer: 4 };

/** Every role the API knows; a Record over the generated Role type fails to compile when one is missing. */
export const ROLES = (Object.keys(ROLE_ORDER) as Role[]).sort((a, b) => ROLE_ORDER[a] - ROLE_ORDER[b]);

export const ROLE_LABELS: Record<Role, string> = translatedLabels(ROLES, 'role');

/** The role in words; an unknown role (newer API) shows as sent. */
export function roleLabel(role: string | null): string {
  if (role === null) return '—';
  return (ROLE_LABELS as Record<string, string>)[role] ?? role;
}

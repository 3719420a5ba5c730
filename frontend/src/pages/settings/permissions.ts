import type { Role } from '../../api/types';

const MANAGER_ROLES: Role[] = ['owner', 'admin'];

/**
 * Owners and admins manage members, invitations and API keys; the backend enforces the rule. The API sends
 * the role as a plain string (null outside the user's own organizations), so anything else manages nothing.
 */
export function canManageOrg(role: string | null | undefined): boolean {
  return MANAGER_ROLES.some((manager) => manager === role);
}

const EDITOR_ROLES: Role[] = ['owner', 'admin', 'lead'];

/**
 * Owners, admins and team leads change domain data (accept, dismiss, snooze or reopen a recommendation);
 * viewers and finance only read, and see no action buttons. The backend enforces the same rule (EDITOR_ROLES).
 */
export function canEditDomain(role: string | null | undefined): boolean {
  return EDITOR_ROLES.some((editor) => editor === role);
}

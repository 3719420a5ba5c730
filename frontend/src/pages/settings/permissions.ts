import type { Role } from '../../api/types';

const MANAGER_ROLES: Role[] = ['owner', 'admin'];

/** Owners and admins manage members, invitations and API keys; the backend enforces the rule. */
export function canManageOrg(role: Role | undefined): boolean {
  return role !== undefined && MANAGER_ROLES.includes(role);
}

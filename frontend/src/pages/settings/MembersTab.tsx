import { useState } from 'react';
import { useMe } from '../../auth/AuthContext';
import { membersApi } from '../../api/endpoints';
import type { Member, Role } from '../../api/types';
import { ROLES, ROLE_LABELS, roleLabel } from '../../api/roles';
import { usePaginatedList, useRowAction } from '../../hooks';
import { PaginatedTable } from '../../components/PaginatedTable';
import { ConfirmButton } from '../../components/ConfirmButton';
import { formatDate } from '../../format';
import { canManageOrg } from './permissions';
import { queryKeys } from '../../data/keys';

export function MembersTab() {
  const me = useMe();
  const org = me.organization!;
  const canManage = canManageOrg(org.role);
  const list = usePaginatedList<Member>(queryKeys.members, (q, signal) => membersApi.list(q, signal), 25);
  const rowAction = useRowAction(list.reload);
  const [confirmId, setConfirmId] = useState<number | null>(null);

  const changeRole = async (member: Member, role: Role) => {
    if (role === member.role) return;
    await rowAction.run(
      member.id,
      async () => {
        const updated = await membersApi.updateRole(member.id, role);
        list.update((items) => items.map((m) => (m.id === member.id ? { ...m, ...updated, role: updated?.role ?? role } : m)));
      },
      `${member.user.email} is now ${ROLE_LABELS[role]}.`,
      { reload: false },
    );
  };

  const remove = (member: Member) =>
    rowAction.run(
      member.id,
      async () => {
        await membersApi.remove(member.id);
        setConfirmId(null);
      },
      `${member.user.email} was removed from ${org.name}.`,
    );

  const renderRow = (member: Member) => {
    const isSelf = member.user.id === me.id;
    const busy = rowAction.busyId === member.id;
    return (
      <tr key={member.id}>
        <td>
          {member.user.name || '—'}
          {isSelf && <span className="badge badge--muted">you</span>}
        </td>
        <td>{member.user.email}</td>
        <td>
          {canManage ? (
            <select
              aria-label={`Role of ${member.user.email}`}
              value={member.role}
              disabled={busy}
              onChange={(e) => void changeRole(member, e.target.value as Role)}
            >
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABELS[r]}
                </option>
              ))}
            </select>
          ) : (
            roleLabel(member.role)
          )}
        </td>
        <td>{formatDate(member.created_at, org.timezone)}</td>
        {canManage && (
          <td className="table__actions">
            <ConfirmButton
              label="Remove"
              question={`Remove ${isSelf ? 'yourself' : member.user.email}?`}
              confirmLabel="Yes, remove"
              confirming={confirmId === member.id}
              onConfirmingChange={(confirming) => setConfirmId(confirming ? member.id : null)}
              onConfirm={() => void remove(member)}
              busy={busy}
            />
          </td>
        )}
      </tr>
    );
  };

  return (
    <section aria-label="Members">
      <div className="section-header">
        <div>
          <h2>Members</h2>
          <p className="muted">
            People with access to {org.name}.{' '}
            {canManage ? 'Change a role or remove someone here.' : 'Only owners and admins can change members.'}
          </p>
        </div>
      </div>
      <PaginatedTable
        list={list}
        columns={['Name', 'E-mail', 'Role', 'Member since']}
        withActions={canManage}
        loadingLabel="Loading members…"
        emptyText="No members."
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}

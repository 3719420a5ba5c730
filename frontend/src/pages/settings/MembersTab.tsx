import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
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
      t('members.roleChanged', { email: member.user.email, role: ROLE_LABELS[role] }),
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
      t('members.removed', { email: member.user.email, org: org.name }),
    );

  const renderRow = (member: Member) => {
    const isSelf = member.user.id === me.id;
    const busy = rowAction.busyId === member.id;
    return (
      <tr key={member.id}>
        <td>
          {member.user.name || '—'}
          {isSelf && <span className="badge badge--muted">{t('members.you')}</span>}
        </td>
        <td>{member.user.email}</td>
        <td>
          {canManage ? (
            <select
              aria-label={t('members.roleOf', { email: member.user.email })}
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
              label={t('members.remove')}
              question={isSelf ? t('members.removeSelfQuestion') : t('members.removeQuestion', { email: member.user.email })}
              confirmLabel={t('members.removeConfirm')}
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
    <section aria-label={t('settings.tabs.members')}>
      <div className="section-header">
        <div>
          <h2>{t('settings.tabs.members')}</h2>
          <p className="muted">
            {t('members.intro', { org: org.name })} {canManage ? t('members.canManage') : t('members.cannotManage')}
          </p>
        </div>
      </div>
      <PaginatedTable
        list={list}
        columns={[t('members.col.name'), t('auth.email'), t('members.col.role'), t('members.col.since')]}
        withActions={canManage}
        loadingLabel={t('members.loading')}
        emptyText={t('members.empty')}
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}

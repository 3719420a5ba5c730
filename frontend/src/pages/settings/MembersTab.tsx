import { useState } from 'react';
import { useMe } from '../../auth/AuthContext';
import { membersApi } from '../../api/endpoints';
import { ROLES, ROLE_LABELS, type Member, type Role } from '../../api/types';
import { usePaginatedList, toApiError } from '../../hooks';
import { ErrorBanner, Pagination, Spinner } from '../../components/ui';
import { formatDate } from '../../format';
import { canManageOrg } from './permissions';

export function MembersTab() {
  const me = useMe();
  const org = me.organization!;
  const canManage = canManageOrg(org.role);
  const list = usePaginatedList<Member>((q, signal) => membersApi.list(q, signal), 25);
  const [busyId, setBusyId] = useState<number | null>(null);
  const [confirmId, setConfirmId] = useState<number | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const changeRole = async (member: Member, role: Role) => {
    if (role === member.role) return;
    setBusyId(member.id);
    setActionError(null);
    setNotice(null);
    try {
      const updated = await membersApi.updateRole(member.id, role);
      list.update((items) => items.map((m) => (m.id === member.id ? { ...m, ...updated, role: updated?.role ?? role } : m)));
      setNotice(`${member.user.email} is now ${ROLE_LABELS[role]}.`);
    } catch (err) {
      setActionError(toApiError(err).message);
    } finally {
      setBusyId(null);
    }
  };

  const remove = async (member: Member) => {
    setBusyId(member.id);
    setActionError(null);
    setNotice(null);
    try {
      await membersApi.remove(member.id);
      setConfirmId(null);
      setNotice(`${member.user.email} was removed from ${org.name}.`);
      list.reload();
    } catch (err) {
      setActionError(toApiError(err).message);
    } finally {
      setBusyId(null);
    }
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
      {notice && (
        <div className="alert alert--success" role="status">
          {notice}
        </div>
      )}
      <ErrorBanner error={actionError} />
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && list.items.length === 0 ? (
        <Spinner label="Loading members…" />
      ) : (
        !list.error && (
          <table className="table">
            <thead>
              <tr>
                <th>Name</th>
                <th>E-mail</th>
                <th>Role</th>
                <th>Member since</th>
                {canManage && <th className="table__actions">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.items.length === 0 && (
                <tr>
                  <td colSpan={canManage ? 5 : 4} className="table__empty">
                    No members.
                  </td>
                </tr>
              )}
              {list.items.map((member) => {
                const isSelf = member.user.id === me.id;
                const busy = busyId === member.id;
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
                        ROLE_LABELS[member.role] ?? member.role
                      )}
                    </td>
                    <td>{formatDate(member.created_at, org.timezone)}</td>
                    {canManage && (
                      <td className="table__actions">
                        {confirmId === member.id ? (
                          <span className="confirm">
                            <span>Remove {isSelf ? 'yourself' : member.user.email}?</span>
                            <button
                              type="button"
                              className="btn btn--small btn--danger"
                              disabled={busy}
                              onClick={() => void remove(member)}
                            >
                              Yes, remove
                            </button>
                            <button type="button" className="btn btn--small" onClick={() => setConfirmId(null)}>
                              Cancel
                            </button>
                          </span>
                        ) : (
                          <button
                            type="button"
                            className="btn btn--small btn--ghost-danger"
                            disabled={busy}
                            onClick={() => setConfirmId(member.id)}
                          >
                            Remove
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )
      )}
      <Pagination page={list.page} pageSize={list.pageSize} count={list.count} onPage={list.setPage} disabled={list.loading} />
    </section>
  );
}

import { useState, type FormEvent } from 'react';
import { useMe } from '../../auth/AuthContext';
import { invitationsApi } from '../../api/endpoints';
import { ApiError } from '../../api/client';
import type { Invitation, Role } from '../../api/types';
import { ROLES, ROLE_LABELS, roleLabel } from '../../api/roles';
import { usePaginatedList, useRowAction, toApiError } from '../../hooks';
import { FormErrorBanner } from '../../components/ui';
import { FormField } from '../../components/FormField';
import { PaginatedTable } from '../../components/PaginatedTable';
import { formatDate } from '../../format';
import { canManageOrg } from './permissions';
import { queryKeys } from '../../data/keys';

function status(inv: Invitation): { label: string; tone: string; pending: boolean } {
  if (inv.accepted_at) return { label: 'Accepted', tone: 'success', pending: false };
  if (inv.expires_at && new Date(inv.expires_at).getTime() < Date.now())
    return { label: 'Expired', tone: 'muted', pending: false };
  return { label: 'Pending', tone: 'info', pending: true };
}

export function InvitationsTab() {
  const me = useMe();
  const org = me.organization!;
  const canManage = canManageOrg(org.role);
  const list = usePaginatedList<Invitation>(queryKeys.invitations, (q, signal) => invitationsApi.list(q, signal), 25);
  const rowAction = useRowAction(list.reload);

  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [submitting, setSubmitting] = useState(false);
  const [formError, setFormError] = useState<ApiError | null>(null);

  const onInvite = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitting(true);
    setFormError(null);
    rowAction.setNotice(null);
    try {
      const created = await invitationsApi.create(email.trim(), role);
      rowAction.setNotice(`Invitation sent to ${created?.email ?? email.trim()}.`);
      setEmail('');
      list.setPage(1);
      list.reload();
    } catch (err) {
      setFormError(toApiError(err));
    } finally {
      setSubmitting(false);
    }
  };

  const revoke = (inv: Invitation) =>
    rowAction.run(inv.id, () => invitationsApi.revoke(inv.id), `Invitation for ${inv.email} revoked.`);

  const renderRow = (inv: Invitation) => {
    const st = status(inv);
    return (
      <tr key={inv.id}>
        <td>{inv.email}</td>
        <td>{roleLabel(inv.role)}</td>
        <td>{inv.invited_by ?? '—'}</td>
        <td>{formatDate(inv.created_at, org.timezone)}</td>
        <td>{formatDate(inv.expires_at, org.timezone)}</td>
        <td>
          <span className={`badge badge--${st.tone}`}>{st.label}</span>
        </td>
        {canManage && (
          <td className="table__actions">
            {st.pending && (
              <button
                type="button"
                className="btn btn--small btn--ghost-danger"
                disabled={rowAction.busyId === inv.id}
                onClick={() => void revoke(inv)}
                aria-label={`Revoke invitation for ${inv.email}`}
              >
                Revoke
              </button>
            )}
          </td>
        )}
      </tr>
    );
  };

  return (
    <section aria-label="Invitations">
      <div className="section-header">
        <div>
          <h2>Invitations</h2>
          <p className="muted">Invite people to {org.name} by e-mail. An invitation expires if it is not accepted in time.</p>
        </div>
      </div>

      {canManage ? (
        <form className="card inline-form" onSubmit={(e) => void onInvite(e)} noValidate aria-label="Invite a member">
          <FormField id="invite-email" label="E-mail" error={formError?.field('email')} className="field--grow">
            {(control) => (
              <input
                {...control}
                type="email"
                placeholder="colleague@example.com"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                required
              />
            )}
          </FormField>
          <FormField id="invite-role" label="Role" error={formError?.field('role')}>
            {(control) => (
              <select {...control} value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {ROLE_LABELS[r]}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <div className="field field--button">
            <button type="submit" className="btn btn--primary" disabled={submitting || !email.trim()}>
              {submitting ? 'Sending…' : 'Send invitation'}
            </button>
          </div>
        </form>
      ) : (
        <p className="muted">Only owners and admins can invite people.</p>
      )}

      <FormErrorBanner error={formError} inlineFields={['email', 'role']} />
      <PaginatedTable
        list={list}
        columns={['E-mail', 'Role', 'Invited by', 'Sent', 'Expires', 'Status']}
        withActions={canManage}
        loadingLabel="Loading invitations…"
        emptyText="No invitations yet."
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}

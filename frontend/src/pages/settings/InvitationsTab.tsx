import { useTranslation } from 'react-i18next';
import { CaughtMailNote } from '../../components/CaughtMailNote';
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
import { i18n } from '../../i18n';
import { canManageOrg } from './permissions';
import { queryKeys } from '../../data/keys';

function status(inv: Invitation): { label: string; tone: string; pending: boolean } {
  if (inv.accepted_at) return { label: i18n.t('invitations.status.accepted'), tone: 'success', pending: false };
  if (inv.expires_at && new Date(inv.expires_at).getTime() < Date.now())
    return { label: i18n.t('invitations.status.expired'), tone: 'muted', pending: false };
  return { label: i18n.t('invitations.status.pending'), tone: 'info', pending: true };
}

export function InvitationsTab() {
  const me = useMe();
  const org = me.organization!;
  const { t } = useTranslation();
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
      rowAction.setNotice(t('invitations.sent', { email: created?.email ?? email.trim() }));
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
    rowAction.run(inv.id, () => invitationsApi.revoke(inv.id), t('invitations.revoked', { email: inv.email }));

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
                aria-label={t('invitations.revokeFor', { email: inv.email })}
              >
                {t('common.revoke')}
              </button>
            )}
          </td>
        )}
      </tr>
    );
  };

  return (
    <section aria-label={t('settings.tabs.invitations')}>
      <div className="section-header">
        <div>
          <h2>{t('settings.tabs.invitations')}</h2>
          <p className="muted">{t('invitations.intro', { org: org.name })}</p>
        </div>
      </div>
      <CaughtMailNote />

      {canManage ? (
        <form className="card inline-form" onSubmit={(e) => void onInvite(e)} noValidate aria-label={t('invitations.form')}>
          <FormField id="invite-email" label={t('auth.email')} error={formError?.field('email')} className="field--grow">
            {(control) => (
              <input
                {...control}
                type="email"
                placeholder={t('invitations.emailPlaceholder')}
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                required
              />
            )}
          </FormField>
          <FormField id="invite-role" label={t('members.col.role')} error={formError?.field('role')}>
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
              {submitting ? t('common.sending') : t('invitations.submit')}
            </button>
          </div>
        </form>
      ) : (
        <p className="muted">{t('invitations.cannotManage')}</p>
      )}

      <FormErrorBanner error={formError} inlineFields={['email', 'role']} />
      <PaginatedTable
        list={list}
        columns={[t('auth.email'), t('members.col.role'), t('invitations.col.invitedBy'), t('invitations.col.sent'), t('invitations.col.expires'), t('common.status')]}
        withActions={canManage}
        loadingLabel={t('invitations.loading')}
        emptyText={t('invitations.empty')}
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}

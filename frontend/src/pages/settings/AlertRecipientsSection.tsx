import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { alertRecipientsApi } from '../../api/endpoints';
import type { ApiError } from '../../api/client';
import type { AlertRecipient, Project, Role } from '../../api/types';
import { ROLES, ROLE_LABELS, roleLabel } from '../../api/roles';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormField } from '../../components/FormField';
import { PaginatedTable } from '../../components/PaginatedTable';
import { FormErrorBanner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { toApiError, usePaginatedList, useRowAction } from '../../hooks';
import { ProjectScopeField } from './ProjectScopeField';

/** Who is told of an alert: everyone with a role, or one member, for one project or all of them. */
export function AlertRecipientsSection({
  canManage,
  projects,
  projectName,
}: {
  canManage: boolean;
  projects: Project[];
  projectName: (id: number | null) => string;
}) {
  const { t } = useTranslation();
  const list = usePaginatedList<AlertRecipient>(queryKeys.alertRecipients, (q, signal) => alertRecipientsApi.list(q, signal), 50);
  const rowAction = useRowAction(list.reload);
  const [by, setBy] = useState<'role' | 'member'>('role');
  const [role, setRole] = useState<Role>('lead');
  const [email, setEmail] = useState('');
  const [project, setProject] = useState('');
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<ApiError | null>(null);
  const [confirmId, setConfirmId] = useState<number | null>(null);

  const add = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setFormError(null);
    rowAction.setNotice(null);
    try {
      await alertRecipientsApi.create({
        ...(by === 'role' ? { role } : { email: email.trim() }),
        project: project ? Number(project) : null,
      });
      rowAction.setNotice(t('alertsSettings.recipients.added'));
      setEmail('');
      list.reload();
    } catch (err) {
      setFormError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const who = (r: AlertRecipient) =>
    r.user_email ?? t('alertsSettings.recipients.everyRole', { role: roleLabel(r.role || null) });

  const renderRow = (r: AlertRecipient) => (
    <tr key={r.id}>
      <td>{who(r)}</td>
      <td>{projectName(r.project)}</td>
      {canManage && (
        <td className="table__actions">
          <ConfirmButton
            label={t('alertsSettings.recipients.remove')}
            ariaLabel={t('alertsSettings.recipients.removeName', { name: who(r) })}
            question={t('alertsSettings.recipients.removeQuestion')}
            confirmLabel={t('alertsSettings.recipients.removeConfirm')}
            confirming={confirmId === r.id}
            onConfirmingChange={(c) => setConfirmId(c ? r.id : null)}
            onConfirm={() => void rowAction.run(r.id, () => alertRecipientsApi.remove(r.id), t('alertsSettings.recipients.removed'))}
            busy={rowAction.busyId === r.id}
          />
        </td>
      )}
    </tr>
  );

  return (
    <section aria-labelledby="recipients-title">
      <h3 id="recipients-title">{t('alertsSettings.recipients.title')}</h3>
      <p className="muted">{t('alertsSettings.recipients.intro')}</p>
      {canManage && (
        <form className="card inline-form" onSubmit={(e) => void add(e)} noValidate aria-label={t('alertsSettings.recipients.form')}>
          <FormField id="recipient-by" label={t('alertsSettings.recipients.by')}>
            {(c) => (
              <select {...c} value={by} onChange={(e) => setBy(e.target.value as 'role' | 'member')}>
                <option value="role">{t('alertsSettings.recipients.byRole')}</option>
                <option value="member">{t('alertsSettings.recipients.byMember')}</option>
              </select>
            )}
          </FormField>
          {by === 'role' ? (
            <FormField id="recipient-role" label={t('alertsSettings.recipients.role')} error={formError?.field('role')}>
              {(c) => (
                <select {...c} value={role} onChange={(e) => setRole(e.target.value as Role)}>
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {ROLE_LABELS[r]}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
          ) : (
            <FormField id="recipient-email" label={t('alertsSettings.recipients.email')} error={formError?.field('email')} className="field--grow">
              {(c) => <input {...c} type="email" value={email} onChange={(e) => setEmail(e.target.value)} />}
            </FormField>
          )}
          <ProjectScopeField
            id="recipient-project"
            label={t('alertsSettings.recipients.project')}
            everythingLabel={t('alertsSettings.allProjects')}
            projects={projects}
            value={project}
            onChange={setProject}
            error={formError?.field('project')}
          />
          <div className="field field--button">
            <button type="submit" className="btn btn--primary" disabled={busy || (by === 'member' && !email.trim())}>
              {busy ? t('common.saving') : t('alertsSettings.recipients.add')}
            </button>
          </div>
        </form>
      )}
      <FormErrorBanner error={formError} inlineFields={['role', 'email', 'project']} />
      <PaginatedTable
        list={list}
        columns={[t('alertsSettings.recipients.col.who'), t('alertsSettings.recipients.col.project')]}
        withActions={canManage}
        loadingLabel={t('alertsSettings.recipients.loading')}
        emptyText={t('alertsSettings.recipients.empty')}
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}

import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { useMe } from '../../auth/AuthContext';
import { auditLogApi } from '../../api/endpoints';
import type { AuditAction, AuditActorType, AuditEntry, AuditFilters } from '../../api/types';
import { usePaginatedList } from '../../hooks';
import { PaginatedTable } from '../../components/PaginatedTable';
import { FormField } from '../../components/FormField';
import { formatDateTime } from '../../format';
import { addDays, startOfDayIn } from '../../dateRange';
import { translatedLabels } from '../../i18n';
import { queryKeys } from '../../data/keys';

/** Every action the API records, in the order the filter lists them (the API's enum). */
export const AUDIT_ACTIONS: AuditAction[] = [
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.locked_out',
  'sign_out',
  'organization.created',
  'organization.updated',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'invitation.created',
  'invitation.accepted',
  'invitation.revoked',
  'api_key.created',
  'api_key.revoked',
  'cloud_account.created',
  'cloud_account.updated',
  'cloud_account.credentials_changed',
  'cloud_account.endpoint_changed',
  'export.downloaded',
  'analysis_settings.updated',
  'recommendation_settings.updated',
  'alert_settings.updated',
  'alert_rule.created',
  'alert_rule.updated',
  'alert_rule.deleted',
  'alert_recipient.created',
  'alert_recipient.deleted',
  'budget.created',
  'budget.updated',
  'budget.deleted',
  'digest_subscription.created',
  'digest_subscription.updated',
  'digest_subscription.deleted',
  'digest_subscription.unsubscribed',
  'holiday.created',
  'holiday.updated',
  'holiday.deleted',
  'project.updated',
  'project_tag_key.created',
  'project_tag_key.deleted',
];

// Locale keys cannot contain the codes' dots (i18next reads them as nesting): "sign_in.failed" -> "sign_in__failed".
const actionKey = (code: string) => code.replace('.', '__');
const ACTION_LABELS: Record<string, string> = translatedLabels(AUDIT_ACTIONS.map(actionKey), 'auditLog.action');
const ACTOR_TYPE_LABELS: Record<AuditActorType, string> = translatedLabels(
  ['user', 'api_key', 'anonymous', 'system'] as const,
  'auditLog.actorType',
);
const TARGET_TYPES = [
  'user',
  'organization',
  'membership',
  'invitation',
  'api_key',
  'cloud_account',
  'export',
  'analysis_settings',
  'recommendation_settings',
  'alert_settings',
  'threshold_rule',
  'alert_recipient',
  'budget',
  'digest_subscription',
  'holiday',
  'project',
  'project_tag_key',
] as const;
const TARGET_TYPE_LABELS: Record<string, string> = translatedLabels(TARGET_TYPES, 'auditLog.targetType');

/** The action in the dashboard's language; the API's own label for a code this build does not know yet. */
export function auditActionLabel(entry: Pick<AuditEntry, 'action' | 'action_label'>): string {
  return ACTION_LABELS[actionKey(entry.action)] ?? entry.action_label;
}

function showValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** What changed (field: old → new), which secrets changed (never their values), and anything else recorded. */
function EntryDetails({ details }: { details: AuditEntry['details'] }) {
  const { t } = useTranslation();
  const { changes, secrets_changed: secrets, values, ...rest } = details;
  const hasAny = Boolean(changes || secrets || values || Object.keys(rest).length);
  if (!hasAny) return <span className="muted">—</span>;
  return (
    <details className="audit-details">
      <summary>{t('auditLog.details.show')}</summary>
      <dl>
        {Object.entries(changes ?? {}).map(([field, change]) => (
          <div key={`c-${field}`}>
            <dt>{field}</dt>
            <dd>{t('auditLog.details.change', { old: showValue(change.old), new: showValue(change.new) })}</dd>
          </div>
        ))}
        {(secrets ?? []).map((field) => (
          <div key={`s-${field}`}>
            <dt>{field}</dt>
            <dd>{t('auditLog.details.secretChanged')}</dd>
          </div>
        ))}
        {Object.entries({ ...(values ?? {}), ...rest }).map(([field, value]) => (
          <div key={`v-${field}`}>
            <dt>{field}</dt>
            <dd>{showValue(value)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

interface FilterForm {
  action: string;
  actor: string;
  from: string;
  to: string;
}

const NO_FILTERS: FilterForm = { action: '', actor: '', from: '', to: '' };

/** The form's filters as the API takes them: local days in the organization's timezone become instants. */
export function auditFilters(form: FilterForm, timeZone: string): AuditFilters {
  const filters: AuditFilters = {};
  if (form.action) filters.action = form.action as AuditAction;
  if (form.actor.trim()) filters.actor = form.actor.trim();
  const since = startOfDayIn(form.from, timeZone);
  // "To" includes its whole day: until the start of the next.
  const until = startOfDayIn(form.to, timeZone) && startOfDayIn(addDays(form.to, 1), timeZone);
  if (since) filters.since = since;
  if (until) filters.until = until;
  return filters;
}

/**
 * Settings → Audit log (owners and admins): who did what, when (in the organization's timezone) and from
 * where, newest first. Entries are written by the server beside each change and cannot be edited.
 */
export function AuditLogTab() {
  const me = useMe();
  const org = me.organization!;
  const { t } = useTranslation();
  const [draft, setDraft] = useState<FilterForm>(NO_FILTERS);
  const [applied, setApplied] = useState<FilterForm>(NO_FILTERS);
  const filters = auditFilters(applied, org.timezone);
  const list = usePaginatedList<AuditEntry>(
    [...queryKeys.auditLog, filters],
    (q, signal) => auditLogApi.list(q, filters, signal),
    25,
  );
  const filtered = Object.keys(filters).length > 0;

  const onApply = (e: FormEvent) => {
    e.preventDefault();
    setApplied(draft);
  };
  const onClear = () => {
    setDraft(NO_FILTERS);
    setApplied(NO_FILTERS);
  };

  const renderRow = (entry: AuditEntry) => (
    <tr key={entry.id} data-testid="audit-row">
      <td className="nowrap">{formatDateTime(entry.at, org.timezone)}</td>
      <td>
        <div className="cell-title">{entry.actor.display || ACTOR_TYPE_LABELS[entry.actor.type]}</div>
        {entry.actor.type !== 'user' && entry.actor.display && (
          <div className="cell-sub">{ACTOR_TYPE_LABELS[entry.actor.type]}</div>
        )}
      </td>
      <td>{auditActionLabel(entry)}</td>
      <td>
        {entry.target ? (
          <>
            <div className="cell-title">{entry.target.label || `#${entry.target.id}`}</div>
            <div className="cell-sub">{TARGET_TYPE_LABELS[entry.target.type] ?? entry.target.type}</div>
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td>
        <div>{entry.client_address || '—'}</div>
        {entry.user_agent && (
          <div className="cell-sub audit-agent" title={entry.user_agent}>
            {entry.user_agent}
          </div>
        )}
      </td>
      <td>
        <EntryDetails details={entry.details} />
      </td>
    </tr>
  );

  return (
    <section aria-label={t('auditLog.tab')}>
      <div className="section-header">
        <div>
          <h2>{t('auditLog.tab')}</h2>
          <p className="muted">{t('auditLog.intro', { org: org.name, timeZone: org.timezone })}</p>
        </div>
      </div>
      <form className="card inline-form audit-filters" onSubmit={onApply} aria-label={t('auditLog.filters')} noValidate>
        <FormField id="audit-action" label={t('auditLog.col.action')}>
          {(control) => (
            <select {...control} value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })}>
              <option value="">{t('auditLog.allActions')}</option>
              {AUDIT_ACTIONS.map((code) => (
                <option key={code} value={code}>
                  {ACTION_LABELS[actionKey(code)]}
                </option>
              ))}
            </select>
          )}
        </FormField>
        <FormField id="audit-actor" label={t('auditLog.col.actor')} className="field--grow">
          {(control) => (
            <input
              {...control}
              placeholder={t('auditLog.actorPlaceholder')}
              value={draft.actor}
              maxLength={254}
              onChange={(e) => setDraft({ ...draft, actor: e.target.value })}
            />
          )}
        </FormField>
        <FormField id="audit-from" label={t('auditLog.from')}>
          {(control) => (
            <input {...control} type="date" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
          )}
        </FormField>
        <FormField id="audit-to" label={t('auditLog.to')}>
          {(control) => (
            <input {...control} type="date" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
          )}
        </FormField>
        <div className="field field--button audit-filters__buttons">
          <button type="submit" className="btn btn--primary">
            {t('auditLog.apply')}
          </button>
          {filtered && (
            <button type="button" className="btn" onClick={onClear}>
              {t('auditLog.clear')}
            </button>
          )}
        </div>
      </form>
      <PaginatedTable
        list={list}
        columns={[
          t('auditLog.col.when'),
          t('auditLog.col.actor'),
          t('auditLog.col.action'),
          t('auditLog.col.target'),
          t('auditLog.col.from'),
          t('auditLog.col.details'),
        ]}
        loadingLabel={t('auditLog.loading')}
        emptyText={filtered ? t('auditLog.emptyFiltered') : t('auditLog.empty')}
        renderRow={renderRow}
      />
    </section>
  );
}

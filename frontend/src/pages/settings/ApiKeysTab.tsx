import { useTranslation } from 'react-i18next';
import { useRef, useState, type FormEvent } from 'react';
import { useMe } from '../../auth/AuthContext';
import { apiKeysApi } from '../../api/endpoints';
import { ApiError } from '../../api/client';
import type { ApiKey, CreatedApiKey, Scope } from '../../api/types';
import { usePaginatedList, useRowAction, toApiError } from '../../hooks';
import { FormErrorBanner } from '../../components/ui';
import { FormField } from '../../components/FormField';
import { PaginatedTable } from '../../components/PaginatedTable';
import { ConfirmButton } from '../../components/ConfirmButton';
import { formatDate, formatDateTime } from '../../format';
import { translatedLabels } from '../../i18n';
import { canManageOrg } from './permissions';
import { queryKeys } from '../../data/keys';

const SCOPE_LABELS: Record<Scope, string> = translatedLabels(['read', 'write', 'ingest'] as const, 'apiKeys.scope');

export async function copyText(text: string, fallbackInput: HTMLInputElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the selection-based fallback
  }
  if (fallbackInput) {
    fallbackInput.focus();
    fallbackInput.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
  return false;
}

export function NewKeySecret({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const inputRef = useRef<HTMLInputElement | null>(null);
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const { t } = useTranslation();

  const onCopy = async () => {
    setCopied((await copyText(created.key, inputRef.current)) ? 'copied' : 'failed');
  };

  return (
    <div className="card secret-card" data-testid="new-key-secret" role="region" aria-label={t('apiKeys.newKey')}>
      <h3>{t('apiKeys.created', { name: created.name })}</h3>
      <div className="alert alert--warning" role="alert">
        {t('apiKeys.copyNow')}
      </div>
      <div className="secret-row">
        <label className="visually-hidden" htmlFor="new-key-value">
          {t('apiKeys.key')}
        </label>
        <input
          id="new-key-value"
          ref={inputRef}
          className="secret-input"
          readOnly
          value={created.key}
          onFocus={(e) => e.currentTarget.select()}
          data-testid="new-key-value"
        />
        <button type="button" className="btn btn--primary" onClick={() => void onCopy()}>
          {copied === 'copied' ? t('common.copied') : t('common.copy')}
        </button>
      </div>
      {copied === 'failed' && <p className="muted">{t('apiKeys.copyFailed')}</p>}
      <p className="muted">{t('apiKeys.scopeNote', { scope: SCOPE_LABELS[created.scope] ?? created.scope })}</p>
      <button type="button" className="btn" onClick={onDone}>
        {t('apiKeys.done')}
      </button>
    </div>
  );
}

export function ApiKeysTab() {
  const me = useMe();
  const org = me.organization!;
  const { t } = useTranslation();
  const canManage = canManageOrg(org.role);
  const list = usePaginatedList<ApiKey>(queryKeys.apiKeys, (q, signal) => apiKeysApi.list(q, signal), 25);
  const rowAction = useRowAction(list.reload);

  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('read');
  const [submitting, setSubmitting] = useState(false);
  const [formError, setFormError] = useState<ApiError | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [confirmId, setConfirmId] = useState<number | null>(null);

  const onCreate = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitting(true);
    setFormError(null);
    rowAction.setNotice(null);
    try {
      const key = await apiKeysApi.create(name.trim(), scope);
      setCreated(key);
      setName('');
      list.setPage(1);
      list.reload();
    } catch (err) {
      setFormError(toApiError(err));
    } finally {
      setSubmitting(false);
    }
  };

  const revoke = (key: ApiKey) =>
    rowAction.run(
      key.id,
      async () => {
        await apiKeysApi.revoke(key.id);
        setConfirmId(null);
      },
      t('apiKeys.revoked', { name: key.name }),
    );

  const renderRow = (key: ApiKey) => {
    const revoked = Boolean(key.revoked_at);
    const busy = rowAction.busyId === key.id;
    return (
      <tr key={key.id} className={revoked ? 'row--muted' : undefined}>
        <td>{key.name}</td>
        <td>
          <code>{key.prefix}…</code>
        </td>
        <td>{SCOPE_LABELS[key.scope] ?? key.scope}</td>
        <td>{formatDate(key.created_at, org.timezone)}</td>
        <td>{key.last_used_at ? formatDateTime(key.last_used_at, org.timezone) : t('common.never')}</td>
        <td>
          {revoked ? (
            <span className="badge badge--muted" title={formatDateTime(key.revoked_at, org.timezone)}>
              {t('apiKeys.status.revoked')}
            </span>
          ) : (
            <span className="badge badge--success">{t('apiKeys.status.active')}</span>
          )}
        </td>
        {canManage && (
          <td className="table__actions">
            {!revoked && (
              <ConfirmButton
                label={t('common.revoke')}
                ariaLabel={t('apiKeys.revokeName', { name: key.name })}
                question={t('apiKeys.revokeQuestion')}
                confirmLabel={t('apiKeys.revokeConfirm')}
                confirming={confirmId === key.id}
                onConfirmingChange={(confirming) => setConfirmId(confirming ? key.id : null)}
                onConfirm={() => void revoke(key)}
                busy={busy}
              />
            )}
          </td>
        )}
      </tr>
    );
  };

  return (
    <section aria-label={t('settings.tabs.apiKeys')}>
      <div className="section-header">
        <div>
          <h2>{t('settings.tabs.apiKeys')}</h2>
          <p className="muted">{t('apiKeys.intro', { org: org.name })}</p>
        </div>
      </div>

      {created && <NewKeySecret created={created} onDone={() => setCreated(null)} />}

      {canManage ? (
        <form className="card inline-form" onSubmit={(e) => void onCreate(e)} noValidate aria-label={t('apiKeys.form')}>
          <FormField id="key-name" label={t('members.col.name')} error={formError?.field('name')} className="field--grow">
            {(control) => (
              <input
                {...control}
                placeholder={t('apiKeys.namePlaceholder')}
                value={name}
                maxLength={100}
                onChange={(e) => setName(e.target.value)}
                required
              />
            )}
          </FormField>
          <FormField id="key-scope" label={t('apiKeys.col.scope')} error={formError?.field('scope')}>
            {(control) => (
              <select {...control} value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
                <option value="read">{SCOPE_LABELS.read}</option>
                <option value="write">{SCOPE_LABELS.write}</option>
                <option value="ingest">{SCOPE_LABELS.ingest}</option>
              </select>
            )}
          </FormField>
          <div className="field field--button">
            <button type="submit" className="btn btn--primary" disabled={submitting || !name.trim()}>
              {submitting ? t('common.creating') : t('apiKeys.submit')}
            </button>
          </div>
        </form>
      ) : (
        <p className="muted">{t('apiKeys.cannotManage')}</p>
      )}

      <FormErrorBanner error={formError} inlineFields={['name', 'scope']} />
      <PaginatedTable
        list={list}
        columns={[t('members.col.name'), t('apiKeys.col.key'), t('apiKeys.col.scope'), t('apiKeys.col.created'), t('apiKeys.col.lastUsed'), t('common.status')]}
        withActions={canManage}
        loadingLabel={t('apiKeys.loading')}
        emptyText={t('apiKeys.empty')}
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}

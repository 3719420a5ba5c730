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
import { canManageOrg } from './permissions';
import { queryKeys } from '../../data/keys';

const SCOPE_LABELS: Record<Scope, string> = {
  read: 'Read only',
  write: 'Read and write',
};

async function copyText(text: string, fallbackInput: HTMLInputElement | null): Promise<boolean> {
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

  const onCopy = async () => {
    setCopied((await copyText(created.key, inputRef.current)) ? 'copied' : 'failed');
  };

  return (
    <div className="card secret-card" data-testid="new-key-secret" role="region" aria-label="New API key">
      <h3>API key “{created.name}” created</h3>
      <div className="alert alert--warning" role="alert">
        Copy this key now. It will not be shown again: GPU Ledger stores only a hash of it.
      </div>
      <div className="secret-row">
        <label className="visually-hidden" htmlFor="new-key-value">
          API key
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
          {copied === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      {copied === 'failed' && <p className="muted">Copying failed: select the key and copy it by hand.</p>}
      <p className="muted">Scope: {SCOPE_LABELS[created.scope] ?? created.scope}. Store it in a secret manager.</p>
      <button type="button" className="btn" onClick={onDone}>
        I have copied the key
      </button>
    </div>
  );
}

export function ApiKeysTab() {
  const me = useMe();
  const org = me.organization!;
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
      `API key “${key.name}” revoked. Requests using it are now refused.`,
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
        <td>{key.last_used_at ? formatDateTime(key.last_used_at, org.timezone) : 'Never'}</td>
        <td>
          {revoked ? (
            <span className="badge badge--muted" title={formatDateTime(key.revoked_at, org.timezone)}>
              Revoked
            </span>
          ) : (
            <span className="badge badge--success">Active</span>
          )}
        </td>
        {canManage && (
          <td className="table__actions">
            {!revoked && (
              <ConfirmButton
                label="Revoke"
                ariaLabel={`Revoke ${key.name}`}
                question="Revoke?"
                confirmLabel="Yes, revoke"
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
    <section aria-label="API keys">
      <div className="section-header">
        <div>
          <h2>API keys</h2>
          <p className="muted">
            Keys let scripts and finance tools use the GPU Ledger REST API for {org.name}. Read-only keys are enough for
            exports and reports.
          </p>
        </div>
      </div>

      {created && <NewKeySecret created={created} onDone={() => setCreated(null)} />}

      {canManage ? (
        <form className="card inline-form" onSubmit={(e) => void onCreate(e)} noValidate aria-label="Create an API key">
          <FormField id="key-name" label="Name" error={formError?.field('name')} className="field--grow">
            {(control) => (
              <input
                {...control}
                placeholder="e.g. Finance export"
                value={name}
                maxLength={100}
                onChange={(e) => setName(e.target.value)}
                required
              />
            )}
          </FormField>
          <FormField id="key-scope" label="Scope" error={formError?.field('scope')}>
            {(control) => (
              <select {...control} value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
                <option value="read">{SCOPE_LABELS.read}</option>
                <option value="write">{SCOPE_LABELS.write}</option>
              </select>
            )}
          </FormField>
          <div className="field field--button">
            <button type="submit" className="btn btn--primary" disabled={submitting || !name.trim()}>
              {submitting ? 'Creating…' : 'Create key'}
            </button>
          </div>
        </form>
      ) : (
        <p className="muted">Only owners and admins can create or revoke API keys.</p>
      )}

      <FormErrorBanner error={formError} inlineFields={['name', 'scope']} />
      <PaginatedTable
        list={list}
        columns={['Name', 'Key', 'Scope', 'Created', 'Last used', 'Status']}
        withActions={canManage}
        loadingLabel="Loading API keys…"
        emptyText="No API keys yet."
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}

import { useState, type FormEvent } from 'react';
import { useMe } from '../../auth/AuthContext';
import { cloudAccountsApi } from '../../api/endpoints';
import { ApiError } from '../../api/client';
import type {
  CloudAccount,
  CloudAccountChanges,
  CloudAccountInput,
  CloudAccountStatus,
  CloudSite,
  EndpointScheme,
} from '../../api/types';
import { CLOUD_STATUS_LABELS, SITE_LABELS, SYNC_KINDS, SYNC_KIND_LABELS, TENCENT_REGIONS } from '../../api/cloudChoices';
import { toApiError, useInterval, usePaginatedList, useTick } from '../../hooks';
import { ErrorBanner, FormErrorBanner, Pagination, Spinner } from '../../components/ui';
import { FormField, FormFieldset } from '../../components/FormField';
import { formatDateTime, formatRelative } from '../../format';
import { canManageOrg } from './permissions';

/** While an account has not finished its first sync, the list refreshes this often. */
export const PENDING_POLL_MS = 10_000;

const FORM_FIELDS = ['name', 'secret_id', 'secret_key', 'regions', 'site', 'endpoint', 'endpoint_scheme'];

const STATUS_TONES: Record<CloudAccountStatus, string> = {
  pending: 'info',
  ok: 'success',
  failing: 'danger',
  disabled: 'muted',
};

/** The form edits every field of the request, so none is missing while it is open. */
type AccountFormValues = Required<CloudAccountInput>;

const EMPTY_FORM: AccountFormValues = {
  name: '',
  secret_id: '',
  secret_key: '',
  regions: [],
  site: 'china',
  endpoint: '',
  endpoint_scheme: 'https',
};

function formFrom(account: CloudAccount): AccountFormValues {
  return {
    name: account.name,
    secret_id: account.secret_id,
    secret_key: '',
    regions: [...account.regions],
    site: account.site,
    endpoint: account.endpoint,
    endpoint_scheme: account.endpoint_scheme,
  };
}

/** The fields that differ from the account; an empty SecretKey means "keep the stored one". */
function changesFrom(account: CloudAccount, form: AccountFormValues): CloudAccountChanges {
  const changes: CloudAccountChanges = {};
  if (form.name.trim() !== account.name) changes.name = form.name.trim();
  if (form.secret_id.trim() !== account.secret_id) changes.secret_id = form.secret_id.trim();
  if (form.secret_key) changes.secret_key = form.secret_key;
  const sameRegions =
    form.regions.length === account.regions.length && form.regions.every((r) => account.regions.includes(r));
  if (!sameRegions) changes.regions = form.regions;
  if (form.site !== account.site) changes.site = form.site;
  if (form.endpoint.trim() !== account.endpoint) changes.endpoint = form.endpoint.trim();
  if (form.endpoint_scheme !== account.endpoint_scheme) changes.endpoint_scheme = form.endpoint_scheme;
  return changes;
}

function regionLabel(code: string): string {
  const region = TENCENT_REGIONS.find((r) => r.code === code);
  return region ? `${region.city} (${code})` : code;
}

function RegionsField({
  idPrefix,
  value,
  onChange,
  error,
}: {
  idPrefix: string;
  value: string[];
  onChange: (regions: string[]) => void;
  error?: string;
}) {
  const toggle = (code: string, checked: boolean) => {
    // Keep the order of the list, whatever order the boxes were ticked in.
    const next = new Set(value);
    if (checked) next.add(code);
    else next.delete(code);
    onChange([
      ...TENCENT_REGIONS.map((r) => r.code).filter((c) => next.has(c)),
      ...value.filter((c) => next.has(c) && !TENCENT_REGIONS.some((r) => r.code === c)),
    ]);
  };
  const groups = [
    { label: 'Chinese mainland', regions: TENCENT_REGIONS.filter((r) => r.mainland) },
    { label: 'Outside the Chinese mainland', regions: TENCENT_REGIONS.filter((r) => !r.mainland) },
  ];
  // A region the account already has but this list does not offer stays visible (and can be unticked).
  const extra = value.filter((c) => !TENCENT_REGIONS.some((r) => r.code === c));
  return (
    <FormFieldset
      id={`${idPrefix}-regions`}
      className="regions"
      legend="Regions"
      hint="The regions where your GPU instances run. GPU Ledger reads only these."
      error={error}
    >
      {groups.map((group) => (
        <div key={group.label} className="regions__group">
          <div className="regions__group-label">{group.label}</div>
          <div className="regions__list">
            {group.regions.map((r) => (
              <label key={r.code} className="check">
                <input
                  type="checkbox"
                  checked={value.includes(r.code)}
                  onChange={(e) => toggle(r.code, e.target.checked)}
                />
                <span>{r.city}</span> <code>{r.code}</code>
              </label>
            ))}
            {group.label === 'Outside the Chinese mainland' &&
              extra.map((code) => (
                <label key={code} className="check">
                  <input type="checkbox" checked onChange={(e) => toggle(code, e.target.checked)} />
                  <code>{code}</code>
                </label>
              ))}
          </div>
        </div>
      ))}
    </FormFieldset>
  );
}

function AccountForm({
  idPrefix,
  label,
  initial,
  editing,
  submitLabel,
  submittingLabel,
  onSubmit,
  onCancel,
}: {
  idPrefix: string;
  label: string;
  initial: AccountFormValues;
  /** Editing an account: the SecretKey becomes an optional "Replace SecretKey". */
  editing: boolean;
  submitLabel: string;
  submittingLabel: string;
  /** Resolves when saved; a rejection is shown in the form. */
  onSubmit: (form: AccountFormValues) => Promise<void>;
  onCancel?: () => void;
}) {
  const [form, setForm] = useState<AccountFormValues>(initial);
  const [advanced, setAdvanced] = useState(Boolean(initial.endpoint) || initial.endpoint_scheme !== 'https');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const set = <K extends keyof AccountFormValues>(field: K, value: AccountFormValues[K]) =>
    setForm((f) => ({ ...f, [field]: value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitting(true);
    setError(null);
    try {
      await onSubmit(form);
      setForm((f) => ({ ...f, secret_key: '' }));
      setSubmitting(false);
    } catch (err) {
      const apiErr = toApiError(err);
      if (apiErr.field('endpoint') || apiErr.field('endpoint_scheme')) setAdvanced(true);
      setError(apiErr);
      setSubmitting(false);
    }
  };

  const fieldError = (name: string) => error?.field(name);
  const id = (name: string) => `${idPrefix}-${name}`;

  return (
    <form className="card account-form" onSubmit={(e) => void submit(e)} noValidate aria-label={label}>
      <h3 className="card__title">{label}</h3>
      <FormErrorBanner error={error} inlineFields={FORM_FIELDS} />
      <div className="form-grid">
        <FormField id={id('name')} label="Name" error={fieldError('name')}>
          {(control) => (
            <input
              {...control}
              placeholder="e.g. Production (Guangzhou)"
              maxLength={100}
              value={form.name}
              onChange={(e) => set('name', e.target.value)}
            />
          )}
        </FormField>
        <FormField id={id('site')} label="Site" error={fieldError('site')}>
          {(control) => (
            <select {...control} value={form.site} onChange={(e) => set('site', e.target.value as CloudSite)}>
              <option value="china">{SITE_LABELS.china}</option>
              <option value="intl">{SITE_LABELS.intl}</option>
            </select>
          )}
        </FormField>
        <FormField id={id('secret_id')} label="SecretId" error={fieldError('secret_id')}>
          {(control) => (
            <input
              {...control}
              className="mono"
              autoComplete="off"
              spellCheck={false}
              placeholder="AKID…"
              value={form.secret_id}
              onChange={(e) => set('secret_id', e.target.value)}
            />
          )}
        </FormField>
        <FormField id={id('secret_key')} label={editing ? 'Replace SecretKey' : 'SecretKey'} error={fieldError('secret_key')}>
          {(control) => (
            <input
              {...control}
              type="password"
              className="mono"
              autoComplete="new-password"
              spellCheck={false}
              placeholder={editing ? 'Leave empty to keep the current key' : undefined}
              value={form.secret_key}
              onChange={(e) => set('secret_key', e.target.value)}
            />
          )}
        </FormField>
      </div>
      <p className="muted field-hint">
        Use a CAM sub-account key with read-only access (e.g. the QcloudCVMReadOnlyAccess, QcloudMonitorReadOnlyAccess
        and QcloudFinanceBillReadOnlyAccess policies). The SecretKey is stored encrypted and is never shown again.
      </p>
      <RegionsField
        idPrefix={idPrefix}
        value={form.regions}
        onChange={(regions) => set('regions', regions)}
        error={fieldError('regions')}
      />
      <div className="disclosure">
        <button
          type="button"
          className="btn btn--small btn--ghost disclosure__toggle"
          aria-expanded={advanced}
          aria-controls={id('advanced')}
          onClick={() => setAdvanced((v) => !v)}
        >
          <span aria-hidden="true">{advanced ? '▾' : '▸'}</span> Advanced
        </button>
        {advanced && (
          <div id={id('advanced')} className="disclosure__body">
            <div className="form-grid">
              <FormField id={id('endpoint')} label="Endpoint override (host:port)" error={fieldError('endpoint')}>
                {(control) => (
                  <input
                    {...control}
                    className="mono"
                    placeholder="e.g. 127.0.0.1:8900"
                    spellCheck={false}
                    value={form.endpoint}
                    onChange={(e) => set('endpoint', e.target.value)}
                  />
                )}
              </FormField>
              <FormField id={id('endpoint_scheme')} label="Scheme" error={fieldError('endpoint_scheme')}>
                {(control) => (
                  <select
                    {...control}
                    value={form.endpoint_scheme}
                    onChange={(e) => set('endpoint_scheme', e.target.value as EndpointScheme)}
                  >
                    <option value="https">https</option>
                    <option value="http">http</option>
                  </select>
                )}
              </FormField>
            </div>
            <p className="muted field-hint">
              Leave the endpoint empty to use Tencent Cloud’s own endpoints (*.tencentcloudapi.com). Set it only to
              send every call to a proxy or a Tencent Cloud simulator.
            </p>
          </div>
        )}
      </div>
      <div className="form-actions">
        <button type="submit" className="btn btn--primary" disabled={submitting}>
          {submitting ? submittingLabel : submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel} disabled={submitting}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function SyncTable({ account, timeZone }: { account: CloudAccount; timeZone: string }) {
  if (account.sync.length === 0) return <p className="muted">No sync has been scheduled yet.</p>;
  const byKind = [...account.sync].sort((a, b) => SYNC_KINDS.indexOf(a.kind) - SYNC_KINDS.indexOf(b.kind));
  return (
    <table className="table table--compact" aria-label={`Sync of ${account.name}`}>
      <thead>
        <tr>
          <th>Data</th>
          <th>Last synced</th>
          <th>Next sync</th>
          <th>Problem</th>
        </tr>
      </thead>
      <tbody>
        {byKind.map((s) => {
          const next = s.next_run_at ? new Date(s.next_run_at).getTime() : null;
          return (
            <tr key={s.kind}>
              <td>{SYNC_KIND_LABELS[s.kind] ?? s.kind}</td>
              <td title={s.last_success_at ? formatDateTime(s.last_success_at, timeZone) : undefined}>
                {formatRelative(s.last_success_at) ?? 'Never'}
              </td>
              <td title={s.next_run_at ? formatDateTime(s.next_run_at, timeZone) : undefined}>
                {next === null || Number.isNaN(next) ? '—' : next <= Date.now() ? 'Due now' : formatRelative(s.next_run_at)}
              </td>
              <td className={s.last_error ? 'text-danger' : 'muted'}>{s.last_error || '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function AccountCard({
  account,
  timeZone,
  canManage,
  editing,
  syncing,
  onEdit,
  onCancelEdit,
  onSave,
  onSync,
}: {
  account: CloudAccount;
  timeZone: string;
  canManage: boolean;
  editing: boolean;
  syncing: boolean;
  onEdit: () => void;
  onCancelEdit: () => void;
  onSave: (form: AccountFormValues) => Promise<void>;
  onSync: () => void;
}) {
  const failing = account.status === 'failing';
  return (
    <article className={`card account${failing ? ' account--failing' : ''}`} aria-label={account.name} data-testid={`cloud-account-${account.id}`}>
      <header className="account__header">
        <div>
          <h3>
            {account.name}
            <span className={`badge badge--${STATUS_TONES[account.status] ?? 'muted'}`} data-testid="account-status">
              {CLOUD_STATUS_LABELS[account.status] ?? account.status}
            </span>
          </h3>
          <p className="muted">Tencent Cloud · {SITE_LABELS[account.site] ?? account.site}</p>
        </div>
        {canManage && !editing && (
          <div className="account__actions">
            <button type="button" className="btn btn--small" onClick={onSync} disabled={syncing}>
              {syncing ? 'Starting…' : 'Sync now'}
            </button>
            <button type="button" className="btn btn--small" onClick={onEdit} aria-label={`Edit ${account.name}`}>
              Edit
            </button>
          </div>
        )}
      </header>

      {failing && account.last_error && (
        <div className="alert alert--error" role="alert" data-testid="account-error">
          <span>
            <strong>Sync is failing{account.last_error_at ? ` (since ${formatRelative(account.last_error_at) ?? formatDateTime(account.last_error_at, timeZone)})` : ''}:</strong>{' '}
            {account.last_error}
          </span>
        </div>
      )}
      {account.status === 'pending' && (
        <div className="alert alert--info" role="status">
          The first sync has not finished yet. This page refreshes on its own every {PENDING_POLL_MS / 1000} seconds.
        </div>
      )}

      {editing ? (
        <AccountForm
          idPrefix={`ca-edit-${account.id}`}
          label={`Edit ${account.name}`}
          initial={formFrom(account)}
          editing
          submitLabel="Save changes"
          submittingLabel="Saving…"
          onSubmit={onSave}
          onCancel={onCancelEdit}
        />
      ) : (
        <dl className="facts facts--small">
          <div>
            <dt>SecretId</dt>
            <dd>
              <code>{account.secret_id}</code>
            </dd>
          </div>
          <div>
            <dt>Currency</dt>
            <dd>{account.currency}</dd>
          </div>
          <div>
            <dt>Regions</dt>
            <dd>{account.regions.length ? account.regions.map(regionLabel).join(', ') : '—'}</dd>
          </div>
          <div>
            <dt>Endpoint</dt>
            <dd>
              {account.endpoint ? (
                <code>
                  {account.endpoint_scheme}://{account.endpoint}
                </code>
              ) : (
                'Tencent Cloud (default)'
              )}
            </dd>
          </div>
        </dl>
      )}
      <SyncTable account={account} timeZone={timeZone} />
    </article>
  );
}

export function CloudAccountsTab() {
  const me = useMe();
  const org = me.organization!;
  const canManage = canManageOrg(org.role);
  const list = usePaginatedList<CloudAccount>((q, signal) => cloudAccountsApi.list(q, signal), 25);
  useTick();

  const [formOpen, setFormOpen] = useState<boolean | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [editingId, setEditingId] = useState<number | null>(null);
  const [syncingId, setSyncingId] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const anyPending = list.items.some((a) => a.status === 'pending');
  useInterval(list.reload, PENDING_POLL_MS, anyPending);

  // With no account yet, the connect form is open from the start.
  const showForm = canManage && (formOpen ?? (!list.loading && !list.error && list.count === 0));

  const create = async (form: AccountFormValues) => {
    setNotice(null);
    setActionError(null);
    const created = await cloudAccountsApi.create({
      ...form,
      name: form.name.trim(),
      secret_id: form.secret_id.trim(),
      endpoint: form.endpoint.trim(),
    });
    setFormOpen(false);
    setFormKey((k) => k + 1);
    setNotice(
      `Connected “${created?.name ?? form.name.trim()}”. The first sync starts now; its status shows below.`,
    );
    if (list.page === 1) list.reload();
    else list.setPage(1);
  };

  const save = async (account: CloudAccount, form: AccountFormValues) => {
    setNotice(null);
    setActionError(null);
    const changes = changesFrom(account, form);
    if (Object.keys(changes).length === 0) {
      setEditingId(null);
      return;
    }
    const updated = await cloudAccountsApi.update(account.id, changes);
    setEditingId(null);
    setNotice(`Saved “${updated?.name ?? account.name}”.`);
    if (updated) list.update((items) => items.map((a) => (a.id === account.id ? updated : a)));
    else list.reload();
  };

  const sync = async (account: CloudAccount) => {
    setSyncingId(account.id);
    setNotice(null);
    setActionError(null);
    try {
      await cloudAccountsApi.sync(account.id);
      setNotice(`Sync of “${account.name}” started. New data appears here as each part finishes.`);
      list.reload();
    } catch (err) {
      setActionError(toApiError(err).message);
    } finally {
      setSyncingId(null);
    }
  };

  return (
    <section aria-label="Cloud accounts">
      <div className="section-header">
        <div>
          <h2>Cloud accounts</h2>
          <p className="muted">
            Tencent Cloud accounts GPU Ledger reads instances, prices, monitoring metrics and bills from for {org.name}.
          </p>
        </div>
        {canManage && !showForm && (
          <button type="button" className="btn btn--primary" onClick={() => setFormOpen(true)}>
            Connect Tencent Cloud account
          </button>
        )}
      </div>

      {!canManage && <p className="muted">Only owners and admins can connect or change cloud accounts.</p>}

      {showForm && (
        <AccountForm
          key={formKey}
          idPrefix="ca-new"
          label="Connect Tencent Cloud account"
          initial={EMPTY_FORM}
          editing={false}
          submitLabel="Connect account"
          submittingLabel="Connecting…"
          onSubmit={create}
          onCancel={list.count > 0 ? () => setFormOpen(false) : undefined}
        />
      )}

      {notice && (
        <div className="alert alert--success" role="status">
          {notice}
        </div>
      )}
      <ErrorBanner error={actionError} />
      <ErrorBanner error={list.error} onRetry={list.reload} />

      {list.loading && list.items.length === 0 ? (
        <Spinner label="Loading cloud accounts…" />
      ) : (
        !list.error &&
        (list.items.length === 0 ? (
          <p className="muted table__empty" data-testid="no-cloud-accounts">
            No cloud account connected yet. Until one is, GPU Ledger has no data to show.
          </p>
        ) : (
          list.items.map((account) => (
            <AccountCard
              key={account.id}
              account={account}
              timeZone={org.timezone}
              canManage={canManage}
              editing={editingId === account.id}
              syncing={syncingId === account.id}
              onEdit={() => {
                setNotice(null);
                setEditingId(account.id);
              }}
              onCancelEdit={() => setEditingId(null)}
              onSave={(form) => save(account, form)}
              onSync={() => void sync(account)}
            />
          ))
        ))
      )}
      <Pagination page={list.page} pageSize={list.pageSize} count={list.count} onPage={list.setPage} disabled={list.loading} />
    </section>
  );
}

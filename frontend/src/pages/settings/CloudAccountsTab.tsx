import { useState } from 'react';
import { useMe } from '../../auth/AuthContext';
import { cloudAccountsApi } from '../../api/endpoints';
import type { CloudAccount, CloudAccountStatus } from '../../api/types';
import { CLOUD_STATUS_LABELS, SITE_LABELS, SYNC_KINDS, SYNC_KIND_LABELS, TENCENT_REGIONS } from '../../api/cloudChoices';
import { toApiError, usePaginatedList, useTick } from '../../hooks';
import { ErrorBanner, Pagination, Spinner } from '../../components/ui';
import { formatDateTime, formatRelative } from '../../format';
import {
  AccountForm,
  changesFrom,
  EMPTY_FORM,
  formFrom,
  testConnection,
  type AccountFormValues,
} from './CloudAccountForm';
import { SyncProgress } from '../../components/SyncProgress';
import { canManageOrg } from './permissions';
import { queryKeys } from '../../data/keys';

/** While an account has not finished its first sync, the list refreshes this often. */
export const PENDING_POLL_MS = 10_000;

const STATUS_TONES: Record<CloudAccountStatus, string> = {
  pending: 'info',
  ok: 'success',
  failing: 'danger',
  disabled: 'muted',
};

function regionLabel(code: string): string {
  const region = TENCENT_REGIONS.find((r) => r.code === code);
  return region ? `${region.city} (${code})` : code;
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
      {account.status === 'pending' && <SyncProgress account={account} />}
    </article>
  );
}

export function CloudAccountsTab() {
  const me = useMe();
  const org = me.organization!;
  const canManage = canManageOrg(org.role);
  const list = usePaginatedList<CloudAccount>(queryKeys.cloudAccounts, (q, signal) => cloudAccountsApi.list(q, signal), 25, {
    // While a sync is pending its progress is polled; the interval stops once none is.
    refetchInterval: (items) => (items.some((a) => a.status === 'pending') ? PENDING_POLL_MS : false),
  });
  useTick();

  const [formOpen, setFormOpen] = useState<boolean | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [editingId, setEditingId] = useState<number | null>(null);
  const [syncingId, setSyncingId] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

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
    // The new row is on page 1; invalidation refetches every cached page of the list.
    list.setPage(1);
    list.reload();
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
          onTest={testConnection}
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

import { useTranslation } from 'react-i18next';
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
import { i18n } from '../../i18n';
import { canManageOrg } from './permissions';
import { WriteCredentialSection } from './WriteCredentialSection';
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
  return region ? i18n.t('cloudAccounts.regionLabel', { city: region.city, code }) : code;
}

function SyncTable({ account, timeZone }: { account: CloudAccount; timeZone: string }) {
  const { t } = useTranslation();
  if (account.sync.length === 0) return <p className="muted">{t('cloudAccounts.noSync')}</p>;
  const byKind = [...account.sync].sort((a, b) => SYNC_KINDS.indexOf(a.kind) - SYNC_KINDS.indexOf(b.kind));
  return (
    <table className="table table--compact" aria-label={t('cloudAccounts.syncOf', { name: account.name })}>
      <thead>
        <tr>
          <th>{t('cloudAccounts.col.data')}</th>
          <th>{t('cloudAccounts.col.lastSynced')}</th>
          <th>{t('cloudAccounts.col.nextSync')}</th>
          <th>{t('cloudAccounts.col.problem')}</th>
        </tr>
      </thead>
      <tbody>
        {byKind.map((s) => {
          const next = s.next_run_at ? new Date(s.next_run_at).getTime() : null;
          return (
            <tr key={s.kind}>
              <td>{SYNC_KIND_LABELS[s.kind] ?? s.kind}</td>
              <td title={s.last_success_at ? formatDateTime(s.last_success_at, timeZone) : undefined}>
                {formatRelative(s.last_success_at) ?? t('common.never')}
              </td>
              <td title={s.next_run_at ? formatDateTime(s.next_run_at, timeZone) : undefined}>
                {next === null || Number.isNaN(next) ? '—' : next <= Date.now() ? t('cloudAccounts.dueNow') : formatRelative(s.next_run_at)}
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
  onAutomationChanged,
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
  onAutomationChanged: (updated: CloudAccount | null, notice: string) => void;
}) {
  const { t } = useTranslation();
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
          <p className="muted">{t('cloudAccounts.siteLine', { site: SITE_LABELS[account.site] ?? account.site })}</p>
        </div>
        {canManage && !editing && (
          <div className="account__actions">
            <button type="button" className="btn btn--small" onClick={onSync} disabled={syncing}>
              {syncing ? t('cloudAccounts.starting') : t('cloudAccounts.syncNow')}
            </button>
            <button type="button" className="btn btn--small" onClick={onEdit} aria-label={t('cloudAccounts.editName', { name: account.name })}>
              {t('cloudAccounts.edit')}
            </button>
          </div>
        )}
      </header>

      {failing && account.last_error && (
        <div className="alert alert--error" role="alert" data-testid="account-error">
          <span>
            <strong>
              {account.last_error_at
                ? t('cloudAccounts.failingSince', {
                    since: formatRelative(account.last_error_at) ?? formatDateTime(account.last_error_at, timeZone),
                  })
                : t('cloudAccounts.failing')}
            </strong>{' '}
            {account.last_error}
          </span>
        </div>
      )}
      {account.status === 'pending' && (
        <div className="alert alert--info" role="status">
          {t('cloudAccounts.pending', { seconds: PENDING_POLL_MS / 1000 })}
        </div>
      )}

      {editing ? (
        <AccountForm
          idPrefix={`ca-edit-${account.id}`}
          label={t('cloudAccounts.editName', { name: account.name })}
          initial={formFrom(account)}
          editing
          submitLabel={t('cloudAccounts.save')}
          submittingLabel={t('common.saving')}
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
            <dt>{t('signup.currency')}</dt>
            <dd>{account.currency}</dd>
          </div>
          <div>
            <dt>{t('cloudForm.regions')}</dt>
            <dd>{account.regions.length ? account.regions.map(regionLabel).join(', ') : '—'}</dd>
          </div>
          <div>
            <dt>{t('cloudAccounts.endpoint')}</dt>
            <dd>
              {account.endpoint ? (
                <code>
                  {account.endpoint_scheme}://{account.endpoint}
                </code>
              ) : (
                t('cloudAccounts.defaultEndpoint')
              )}
            </dd>
          </div>
        </dl>
      )}
      <SyncTable account={account} timeZone={timeZone} />
      {account.status === 'pending' && <SyncProgress account={account} />}
      {!editing && <WriteCredentialSection account={account} canManage={canManage} onChanged={onAutomationChanged} />}
    </article>
  );
}

export function CloudAccountsTab() {
  const me = useMe();
  const org = me.organization!;
  const { t } = useTranslation();
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
      t('cloudAccounts.connected', { name: created?.name ?? form.name.trim() }),
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
    setNotice(t('cloudAccounts.saved', { name: updated?.name ?? account.name }));
    if (updated) list.update((items) => items.map((a) => (a.id === account.id ? updated : a)));
    else list.reload();
  };

  const sync = async (account: CloudAccount) => {
    setSyncingId(account.id);
    setNotice(null);
    setActionError(null);
    try {
      await cloudAccountsApi.sync(account.id);
      setNotice(t('cloudAccounts.syncStarted', { name: account.name }));
      list.reload();
    } catch (err) {
      setActionError(toApiError(err).message);
    } finally {
      setSyncingId(null);
    }
  };

  return (
    <section aria-label={t('settings.tabs.cloudAccounts')}>
      <div className="section-header">
        <div>
          <h2>{t('settings.tabs.cloudAccounts')}</h2>
          <p className="muted">{t('cloudAccounts.intro', { org: org.name })}</p>
        </div>
        {canManage && !showForm && (
          <button type="button" className="btn btn--primary" onClick={() => setFormOpen(true)}>
            {t('cloudAccounts.connect')}
          </button>
        )}
      </div>

      {!canManage && <p className="muted">{t('cloudAccounts.cannotManage')}</p>}

      {showForm && (
        <AccountForm
          key={formKey}
          idPrefix="ca-new"
          label={t('cloudAccounts.connect')}
          initial={EMPTY_FORM}
          editing={false}
          submitLabel={t('cloudAccounts.connectSubmit')}
          submittingLabel={t('common.connecting')}
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
        <Spinner label={t('cloudAccounts.loading')} />
      ) : (
        !list.error &&
        (list.items.length === 0 ? (
          <p className="muted table__empty" data-testid="no-cloud-accounts">
            {t('cloudAccounts.empty')}
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
              onAutomationChanged={(updated, message) => {
                setActionError(null);
                setNotice(message);
                if (updated) list.update((items) => items.map((a) => (a.id === account.id ? updated : a)));
                else list.reload();
              }}
            />
          ))
        ))
      )}
      <Pagination page={list.page} pageSize={list.pageSize} count={list.count} onPage={list.setPage} disabled={list.loading} />
    </section>
  );
}

import { useTranslation } from 'react-i18next';
import { useState } from 'react';
import { digestSubscriptionsApi, projectsApi } from '../../api/endpoints';
import type { ApiError } from '../../api/client';
import type { DigestSubscription, Org } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner } from '../../components/ui';
import { PaginatedTable } from '../../components/PaginatedTable';
import { queryKeys } from '../../data/keys';
import { formatDateTime } from '../../format';
import { toApiError, useApiData, usePaginatedList, useRowAction } from '../../hooks';
import {
  DEFAULT_DIGEST,
  DigestForm,
  formFromSubscription,
  FREQUENCY_LABELS,
  inputFromForm,
  WEEKDAY_KEYS,
  WEEKDAY_LABELS,
  type DigestFormValues,
} from './DigestForm';
import { DigestPreviewPanel } from './DigestPreviewPanel';
import { i18n } from '../../i18n';

function whenText(s: DigestSubscription): string {
  const time = s.send_time.slice(0, 5);
  const key = WEEKDAY_KEYS[s.weekday];
  if (s.frequency === 'weekly' && key) return i18n.t('reports.digests.whenWeekly', { day: WEEKDAY_LABELS[key], time });
  if (s.frequency === 'monthly') return i18n.t('reports.digests.whenMonthly', { day: s.day_of_month, time });
  return i18n.t('reports.digests.whenDaily', { time });
}

/** The signed-in person's own digests: anyone may subscribe, it is their mailbox (the API agrees). */
export function DigestSubscriptions({ org }: { org: Org }) {
  const { t } = useTranslation();
  const list = usePaginatedList<DigestSubscription>(queryKeys.digestSubscriptions, (q, signal) =>
    digestSubscriptionsApi.list(q, signal),
  );
  const rowAction = useRowAction(list.reload);
  const projects = useApiData([...queryKeys.projects, 'all'], (signal) => projectsApi.list({ page: 1, pageSize: 500 }, signal));
  const projectNames = new Map((projects.data?.results ?? []).map((p) => [p.id, p.name]));

  const [mode, setMode] = useState<{ kind: 'closed' } | { kind: 'create' } | { kind: 'edit'; id: number }>({ kind: 'closed' });
  const [formError, setFormError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmId, setConfirmId] = useState<number | null>(null);
  const [previewId, setPreviewId] = useState<number | null>(null);

  const save = async (values: DigestFormValues) => {
    setBusy(true);
    setFormError(null);
    rowAction.setNotice(null);
    try {
      if (mode.kind === 'edit') {
        await digestSubscriptionsApi.update(mode.id, inputFromForm(values));
        rowAction.setNotice(t('reports.digests.saved'));
      } else {
        await digestSubscriptionsApi.create(inputFromForm(values));
        rowAction.setNotice(t('reports.digests.created'));
      }
      setMode({ kind: 'closed' });
      list.reload();
    } catch (err) {
      setFormError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const open = (next: typeof mode) => {
    setFormError(null);
    setMode(next);
  };

  const scopeText = (s: DigestSubscription) =>
    s.projects.length === 0
      ? t('reports.digests.wholeOrg')
      : s.projects.map((id) => projectNames.get(id) ?? `#${id}`).join(', ');

  const renderRow = (s: DigestSubscription) => (
    <tr key={s.id}>
      <td>{FREQUENCY_LABELS[s.frequency] ?? s.frequency}</td>
      <td>
        {whenText(s)}
        <div className="cell-sub">{s.effective_timezone}</div>
      </td>
      <td>{scopeText(s)}</td>
      <td>{s.workdays_only ? t('reports.digests.workdaysYes') : t('reports.digests.workdaysNo')}</td>
      <td>
        {s.is_active ? formatDateTime(s.next_send_at, s.effective_timezone) : t('reports.digests.unsubscribed')}
        {s.last_delivery?.status === 'failed' && (
          <div className="cell-sub text-danger">{t('reports.digests.lastFailed', { error: s.last_delivery.error })}</div>
        )}
      </td>
      <td className="table__actions">
        <button
          type="button"
          className="btn btn--small"
          aria-label={t('reports.digests.previewOf', { when: whenText(s) })}
          onClick={() => setPreviewId(s.id)}
        >
          {t('reports.digests.preview')}
        </button>
        <button
          type="button"
          className="btn btn--small btn--ghost"
          aria-label={t('reports.digests.editOf', { when: whenText(s) })}
          onClick={() => open({ kind: 'edit', id: s.id })}
        >
          {t('reports.digests.edit')}
        </button>
        <ConfirmButton
          label={t('reports.digests.delete')}
          ariaLabel={t('reports.digests.deleteOf', { when: whenText(s) })}
          question={t('reports.digests.deleteQuestion')}
          confirmLabel={t('reports.digests.deleteConfirm')}
          confirming={confirmId === s.id}
          onConfirmingChange={(c) => setConfirmId(c ? s.id : null)}
          onConfirm={() =>
            void rowAction.run(
              s.id,
              async () => {
                await digestSubscriptionsApi.remove(s.id);
                setConfirmId(null);
                if (previewId === s.id) setPreviewId(null);
              },
              t('reports.digests.deleted'),
            )
          }
          busy={rowAction.busyId === s.id}
        />
      </td>
    </tr>
  );

  const editing = mode.kind === 'edit' ? list.items.find((s) => s.id === mode.id) : undefined;
  const empty = !list.loading && !list.error && list.items.length === 0;

  return (
    <section aria-labelledby="digests-title">
      <div className="section-header">
        <div>
          <h2 id="digests-title">{t('reports.digests.title')}</h2>
          <p className="muted">{t('reports.digests.intro')}</p>
        </div>
        {mode.kind === 'closed' && (
          <button type="button" className="btn btn--primary" onClick={() => open({ kind: 'create' })}>
            {t('reports.digests.new')}
          </button>
        )}
      </div>
      {mode.kind !== 'closed' && <ErrorBanner error={projects.error} onRetry={projects.reload} />}
      {mode.kind !== 'closed' && (
        <DigestForm
          key={mode.kind === 'edit' ? mode.id : 'new'}
          initial={editing ? formFromSubscription(editing) : DEFAULT_DIGEST}
          projects={projects.data?.results ?? []}
          orgTimezone={org.timezone}
          submitLabel={mode.kind === 'edit' ? t('reports.digests.save') : t('reports.digests.create')}
          error={formError}
          busy={busy}
          onSubmit={(values) => void save(values)}
          onCancel={() => open({ kind: 'closed' })}
        />
      )}
      {empty && mode.kind === 'closed' && <p className="muted">{t('reports.digests.emptyNext')}</p>}
      <PaginatedTable
        list={list}
        columns={[
          t('reports.digests.col.frequency'),
          t('reports.digests.col.when'),
          t('reports.digests.col.scope'),
          t('reports.digests.col.workdays'),
          t('reports.digests.col.next'),
        ]}
        withActions
        loadingLabel={t('reports.digests.loading')}
        emptyText={t('reports.digests.empty')}
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
      {previewId !== null && (
        <DigestPreviewPanel subscriptionId={previewId} timeZone={org.timezone} onClose={() => setPreviewId(null)} />
      )}
    </section>
  );
}

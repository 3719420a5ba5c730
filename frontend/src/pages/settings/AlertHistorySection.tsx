import { useTranslation } from 'react-i18next';
import { alertsApi } from '../../api/endpoints';
import type { AlertEvent, AlertKind } from '../../api/types';
import { PaginatedTable } from '../../components/PaginatedTable';
import { queryKeys } from '../../data/keys';
import { formatDateTime } from '../../format';
import { translatedLabels } from '../../i18n';
import { usePaginatedList } from '../../hooks';

const KINDS: AlertKind[] = ['budget', 'anomaly', 'threshold', 'recovery', 'history'];
export const ALERT_KIND_LABELS: Record<AlertKind, string> = translatedLabels(KINDS, 'alertsSettings.kind');
const SEVERITY_TONES: Record<string, string> = { info: 'info', warning: 'warning', critical: 'danger' };
export const SEVERITY_LABELS = translatedLabels(['info', 'warning', 'critical'] as const, 'alertsSettings.severity');

/** The alerts sent lately, newest first, with where each went and whether it arrived. */
export function AlertHistorySection({ timeZone }: { timeZone: string }) {
  const { t } = useTranslation();
  const list = usePaginatedList<AlertEvent>(queryKeys.alerts, (q, signal) => alertsApi.list(q, signal), 20);
  const renderRow = (a: AlertEvent) => {
    const failed = a.deliveries.filter((d) => d.status === 'failed');
    const sent = a.deliveries.filter((d) => d.status === 'sent').length;
    const severity = (a.severity ?? 'warning') as keyof typeof SEVERITY_LABELS;
    return (
      <tr key={a.id}>
        <td>{formatDateTime(a.started_at, timeZone)}</td>
        <td>
          {ALERT_KIND_LABELS[a.kind] ?? a.kind}
          <div>
            <span className={`badge badge--${SEVERITY_TONES[severity] ?? 'muted'}`}>{SEVERITY_LABELS[severity] ?? severity}</span>
          </div>
        </td>
        <td>
          <div className="cell-title">{a.title}</div>
          <div className="cell-sub">{a.message}</div>
          {(a.project_name || a.instance_name) && (
            <div className="cell-sub">{[a.project_name, a.instance_name, a.instance_provider_id].filter(Boolean).join(' · ')}</div>
          )}
        </td>
        <td>
          {a.imported ? (
            <div className="cell-sub">{t('alertsSettings.history.imported')}</div>
          ) : (
            t('alertsSettings.history.delivered', { sent, total: a.deliveries.length })
          )}
          {failed.map((d) => (
            <div key={`${d.channel}-${d.address}`} className="cell-sub text-danger">
              {t('alertsSettings.history.failed', { address: d.address, error: d.error ?? '' })}
            </div>
          ))}
        </td>
      </tr>
    );
  };
  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">{t('alertsSettings.history.title')}</h3>
      <PaginatedTable
        list={list}
        columns={[
          t('alertsSettings.history.col.when'),
          t('alertsSettings.history.col.kind'),
          t('alertsSettings.history.col.alert'),
          t('alertsSettings.history.col.delivery'),
        ]}
        loadingLabel={t('alertsSettings.history.loading')}
        emptyText={t('alertsSettings.history.empty')}
        renderRow={renderRow}
      />
    </section>
  );
}

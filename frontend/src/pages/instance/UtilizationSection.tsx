import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { cloudAccountsApi } from '../../api/endpoints';
import type { CloudAccount, Page, InstancePhases, Timeseries } from '../../api/types';
import { PhaseLegend } from '../../components/analysis';
import { EmptyState, ErrorBanner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { formatDateTime, formatRelative } from '../../format';
import { useApiData, type ApiData } from '../../hooks';
import { instancesApi } from '../../api/endpoints';
import { ChartSkeleton } from './ChartSkeleton';
import { detailWindow, phaseBands, withDetail, zoomWindow, type TimeWindow } from './timeseriesOption';

const TimeseriesChart = lazy(() => import('./InstanceCharts').then((m) => ({ default: m.TimeseriesChart })));

/** The earliest next metrics sync over the organization's accounts, or null when none is planned. */
export function nextMetricsSync(accounts: CloudAccount[]): string | null {
  const next = accounts
    .flatMap((a) => a.sync.filter((s) => s.kind === 'metrics' && s.next_run_at).map((s) => s.next_run_at!))
    .sort();
  return next[0] ?? null;
}

/**
 * The zoomable time series with the phase bands behind it. `phases` gives the bands (the same period);
 * without points it says so and when the next metrics sync runs.
 */
export function UtilizationSection({
  id,
  series,
  phases,
  period,
  timeZone,
}: {
  id: number;
  series: ApiData<Timeseries>;
  phases: ApiData<InstancePhases>;
  period: { start: number; end: number };
  timeZone: string;
}) {
  const { t } = useTranslation();
  const segments = phases.data?.segments;
  const bands = useMemo(() => phaseBands(segments ?? []), [segments]);
  const empty = series.data !== null && series.data.points.length === 0;

  // Zoomed far enough in, the window is fetched again at the finer resolution the API gives for it (at most
  // its 1,500 points); the coarse points stay outside the window. Settled zooms only: 350 ms after the last.
  const [zoom, setZoom] = useState<TimeWindow | null>(null);
  const [pending, setPending] = useState<TimeWindow | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => setZoom(pending), 350);
    return () => clearTimeout(timer);
  }, [pending]);
  const detail = series.data ? detailWindow(zoom, series.data.resolution) : null;
  const fine = useApiData<Timeseries>(
    [...queryKeys.instance(id), 'timeseries-detail', detail?.start, detail?.end],
    (signal) =>
      instancesApi.timeseries(
        id,
        { start: new Date(detail!.start).toISOString(), end: new Date(detail!.end).toISOString() },
        signal,
      ),
    { enabled: detail !== null },
  );
  const shownDetail = detail && fine.data ? fine.data : null;
  const points = useMemo(
    () => (series.data && shownDetail && detail ? withDetail(series.data.points, shownDetail.points, detail) : series.data?.points ?? []),
    // detail is derived from zoom and the series: the fine answer and the series are what change the points.
    [series.data, shownDetail],
  );

  return (
    <>
      <ErrorBanner error={series.error} onRetry={series.reload} />
      {series.loading && <ChartSkeleton height={360} label={t('instanceDetail.timeseries.loading')} />}
      {empty && <NoMetrics />}
      {series.data && !empty && (
        <>
          <p className="muted small" data-testid="timeseries-resolution">
            {t(`instanceDetail.timeseries.resolution.${(shownDetail ?? series.data).resolution}`)} ·{' '}
            {t('instanceDetail.timeseries.zoomHint')}
          </p>
          {/* The bands wait for the phases: drawn without them, the count would be a wrong 0. */}
          {phases.loading ? (
            <ChartSkeleton height={360} label={t('instance.loadingPhases')} />
          ) : (
            <Suspense fallback={<ChartSkeleton height={360} label={t('common.loadingChart')} />}>
              <TimeseriesChart
                points={points}
                resolution={series.data.resolution}
                bands={bands.bands}
                start={period.start}
                end={period.end}
                timeZone={timeZone}
                zoom={zoom}
                onZoom={({ startPct, endPct }) =>
                  setPending(startPct <= 0 && endPct >= 100 ? null : zoomWindow(period, startPct, endPct))
                }
              />
            </Suspense>
          )}
          <PhaseLegend />
          {bands.total > bands.bands.length && (
            <p className="muted small" data-testid="phase-bands-capped">
              {t('instanceDetail.timeseries.bandsCapped', { shown: bands.bands.length, total: bands.total })}
            </p>
          )}
        </>
      )}
    </>
  );
}

function NoMetrics() {
  const { t } = useTranslation();
  // Only asked when there is nothing to draw: when do metrics arrive next?
  const accounts = useApiData<Page<CloudAccount>>([...queryKeys.cloudAccounts, 'instance-next-sync'], (signal) =>
    cloudAccountsApi.list({ page: 1, pageSize: 100 }, signal),
  );
  const next = accounts.data ? nextMetricsSync(accounts.data.results) : null;
  const when = next ? formatRelative(next) : null;
  return (
    <EmptyState title={t('instanceDetail.timeseries.empty.title')} icon="◷" testId="timeseries-empty">
      <p>{t('instanceDetail.timeseries.empty.body')}</p>
      <p className="muted" data-testid="next-sync" title={next ? formatDateTime(next) : undefined}>
        {when ? t('instanceDetail.timeseries.empty.nextSync', { when }) : t('instanceDetail.timeseries.empty.noSync')}
      </p>
    </EmptyState>
  );
}

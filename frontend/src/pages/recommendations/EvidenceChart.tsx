import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { instancesApi } from '../../api/endpoints';
import type { RecommendationDetail, InstancePhases, InstanceProfile } from '../../api/types';
import { Chart } from '../../components/Chart';
import { PhaseLegend } from '../../components/analysis';
import { ErrorBanner, Spinner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { formatDateTime } from '../../format';
import { useApiData } from '../../hooks';
import { dailyPhaseMinutes, dailyPhaseOption, hourOfWeekOption } from './evidenceCharts';

/** The phases endpoint answers at most 31 days: a longer evidence range is drawn from its last 31 days. */
const MAX_PHASE_DAYS = 31;

export function phasesRange(start: string, end: string): { start: string; end: string } {
  const endMs = new Date(end).getTime();
  const earliest = endMs - MAX_PHASE_DAYS * 86_400_000;
  const startMs = Math.max(new Date(start).getTime(), earliest);
  return { start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() };
}

/** The figure the rule compared the hours against (e.g. p95_max_pct = 15), when the evidence has one. */
function thresholdFrom(rec: RecommendationDetail): number | null {
  const figure = rec.evidence.figures.find((f) => f.name === 'p95_max_pct' || f.name === 'night_p95_peak_pct');
  const value = figure ? Number(figure.value) : NaN;
  return Number.isFinite(value) ? value : null;
}

/**
 * The chart the evidence names: the hour-of-week profile for a schedule or a night downshift, otherwise the
 * hours per phase per day over the evidence's range. A project-wide recommendation has figures only, and so
 * does one whose evidence recorded no range.
 */
export function EvidenceChart({ rec, timeZone }: { rec: RecommendationDetail; timeZone: string }) {
  const { t } = useTranslation();
  const noChart = (
    <p className="muted" data-testid="evidence-no-chart">
      {t('recommendations.detail.noChart')}
    </p>
  );
  if (rec.instance === null) return noChart;
  if (rec.evidence.chart === 'profile') return <ProfileEvidence rec={rec} instanceId={rec.instance} />;
  if (rec.evidence.chart_range === null) return noChart;
  const range = phasesRange(rec.evidence.chart_range.start, rec.evidence.chart_range.end);
  return <DailyPhasesEvidence range={range} instanceId={rec.instance} timeZone={timeZone} />;
}

function ProfileEvidence({ rec, instanceId }: { rec: RecommendationDetail; instanceId: number }) {
  const { t } = useTranslation();
  const profile = useApiData<InstanceProfile>([...queryKeys.instance(instanceId), 'profile'], (signal) =>
    instancesApi.profile(instanceId, signal),
  );
  const threshold = thresholdFrom(rec);
  const option = useMemo(
    () => (profile.data?.p95_pct ? hourOfWeekOption({ p95: profile.data.p95_pct, window: rec.action.window, thresholdPct: threshold }) : null),
    [profile.data, rec.action.window, threshold],
  );
  const tz = rec.action.window?.tz ?? profile.data?.tz ?? '';
  return (
    <>
      <ErrorBanner error={profile.error} onRetry={profile.reload} />
      {profile.loading && <Spinner label={t('common.loadingChart')} />}
      {profile.data && !option && <p className="muted">{t('recommendations.detail.notAnalysed')}</p>}
      {option && (
        <>
          <p className="muted small">{t('recommendations.chart.profileCaption', { timeZone: tz })}</p>
          <Chart option={option} height={260} ariaLabel={t('recommendations.chart.profileLabel', { timeZone: tz })} />
        </>
      )}
    </>
  );
}

function DailyPhasesEvidence({
  range,
  instanceId,
  timeZone,
}: {
  range: { start: string; end: string };
  instanceId: number;
  timeZone: string;
}) {
  const { t } = useTranslation();
  const phases = useApiData<InstancePhases>([...queryKeys.instance(instanceId), 'phases', range.start, range.end], (signal) =>
    instancesApi.phases(instanceId, range, signal),
  );
  const option = useMemo(
    () => (phases.data ? dailyPhaseOption(dailyPhaseMinutes(phases.data.segments, phases.data.start, phases.data.end, timeZone)) : null),
    [phases.data, timeZone],
  );
  return (
    <>
      <ErrorBanner error={phases.error} onRetry={phases.reload} />
      {phases.loading && <Spinner label={t('common.loadingChart')} />}
      {phases.data && option && (
        <>
          <p className="muted small">
            {t('recommendations.chart.dailyCaption', {
              start: formatDateTime(phases.data.start, timeZone),
              end: formatDateTime(phases.data.end, timeZone),
              timeZone,
            })}
          </p>
          <Chart option={option} height={260} ariaLabel={t('recommendations.chart.dailyLabel', { timeZone })} />
          <PhaseLegend />
        </>
      )}
    </>
  );
}

export default EvidenceChart;

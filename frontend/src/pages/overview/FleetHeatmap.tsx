import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useResolvedTheme } from '../../theme';
import { useHourOfWeek, type Days } from './data';
import { fleetHeatmapOption, WEEKDAY_KEYS } from './fleetHeatmap';
import { Section, SectionEmpty, Skeleton } from './Section';
import type { OverviewScope } from './types';

const Chart = lazy(() => import('../../components/Chart').then((m) => ({ default: m.Chart })));

/** Mean GPU utilization per weekday and hour of the organization's timezone, over the page's days. */
export function FleetHeatmap({ scope, days }: { scope: OverviewScope; days: Days }) {
  const { t } = useTranslation();
  const grid = useHourOfWeek(scope, days);
  const cells = grid.data?.cells ?? [];
  const timeZone = grid.data?.timezone ?? scope.timeZone;
  const theme = useResolvedTheme();
  const option = useMemo(
    () =>
      fleetHeatmapOption(
        grid.data?.cells ?? [],
        WEEKDAY_KEYS.map((d) => t(`weekday.${d}`)),
        {
          utilization: t('dashboard.heatmap.utilization'),
          cell: (when, pct, gpuHours) => t('dashboard.heatmap.cell', { day: when.day, hour: when.hour, pct, gpuHours }),
        },
        theme,
      ),
    [grid.data, t, theme],
  );
  return (
    <Section
      title={scope.project ? t('dashboard.heatmap.projectTitle') : t('dashboard.heatmap.title')}
      subtitle={t('dashboard.heatmap.subtitle', { timeZone })}
      loading={grid.loading}
      error={grid.error}
      onRetry={grid.reload}
      testId="heatmap-section"
    >
      {cells.length === 0 ? (
        <SectionEmpty title={t('dashboard.heatmap.emptyTitle')} testId="heatmap-empty">
          {t('dashboard.heatmap.emptyBody')}
        </SectionEmpty>
      ) : (
        <Suspense fallback={<Skeleton height={260} />}>
          <Chart name="fleet-heatmap" option={option} height={260} ariaLabel={t('dashboard.heatmap.chartLabel', { timeZone })} />
        </Suspense>
      )}
    </Section>
  );
}

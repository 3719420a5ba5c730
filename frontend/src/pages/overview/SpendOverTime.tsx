import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { formatMoney, formatPercent } from '../../money';
import { DEFAULT_BASIS, type CostBasis } from './CostBasis';
import { useSpendByDay, useTagKeys, type Days } from './data';
import { Section, SectionEmpty, Skeleton } from './Section';
import { BASE_DIMENSIONS, spendOverTimeOption, spendSeries } from './spendOverTime';
import type { OverviewScope } from './types';

const Chart = lazy(() => import('../../components/Chart').then((m) => ({ default: m.Chart })));

/** The URL parameter of the switch, so a shared link shows the same stacking. */
export const SPEND_BY_PARAM = 'spend_by';

function dimensionLabel(t: (key: string, options?: Record<string, string>) => string, dimension: string): string {
  if (dimension.startsWith('tag:')) return t('dashboard.spend.byTag', { key: dimension.slice(4) });
  return t(`dashboard.spend.by.${dimension}`);
}

/** Daily spend stacked by project (or a tag, instance type or charge type) over the page's days. */
export function SpendOverTime({ scope, days, basis = DEFAULT_BASIS }: { scope: OverviewScope; days: Days; basis?: CostBasis }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tagKeys = useTagKeys();
  const dimensions = [...BASE_DIMENSIONS, ...(tagKeys.data?.results ?? []).map((k) => `tag:${k.key}`)];
  const fallback = scope.project ? 'instance_type' : 'project';
  const asked = params.get(SPEND_BY_PARAM);
  // A tag key may not be known until the tag keys arrive: trust the URL meanwhile.
  const groupBy = asked && (dimensions.includes(asked) || (asked.startsWith('tag:') && !tagKeys.data)) ? asked : fallback;
  const report = useSpendByDay(scope, days, groupBy, basis);
  const data = report.data;
  const currency = data?.currency ?? scope.currency;
  const series = useMemo(
    () => (data ? spendSeries(data, { unallocated: t('dashboard.spend.unallocated'), other: t('dashboard.spend.other') }) : []),
    [data, t],
  );
  const option = useMemo(
    () => (data ? spendOverTimeOption(data.buckets, series, currency, t('dashboard.spend.dayTotal')) : null),
    [data, series, currency, t],
  );

  const choose = (next: string) => {
    const copy = new URLSearchParams(params);
    if (next === fallback) copy.delete(SPEND_BY_PARAM);
    else copy.set(SPEND_BY_PARAM, next);
    setParams(copy, { replace: true });
  };

  const switcher = (
    <label className="ov-switch">
      <span className="muted">{t('dashboard.spend.stackBy')}</span>
      <select value={groupBy} onChange={(e) => choose(e.target.value)} data-testid="spend-group-by">
        {dimensions.map((d) => (
          <option key={d} value={d}>
            {dimensionLabel(t, d)}
          </option>
        ))}
      </select>
    </label>
  );

  const empty = data && Number(data.total) === 0;
  return (
    <Section
      title={`${t('dashboard.spend.title')} · ${t(`costBasis.${data?.basis ?? basis}`)}`}
      subtitle={
        data && !empty
          ? t('dashboard.spend.evidence', {
              total: formatMoney(data.total, currency),
              previous: formatMoney(data.previous_period.cost, currency),
              unallocated: formatMoney(data.unallocated.cost, currency),
              share: formatPercent((data.unallocated.share_pct ?? 0) / 100),
              count: data.buckets.length,
            })
          : undefined
      }
      actions={switcher}
      loading={report.loading}
      error={report.error}
      onRetry={report.reload}
      skeletonHeight={300}
      className="ov-wide"
      testId="spend-section"
    >
      {empty ? (
        <SectionEmpty title={t('dashboard.spend.emptyTitle')} testId="spend-empty">
          {t('dashboard.spend.emptyBody')}
        </SectionEmpty>
      ) : option ? (
        <Suspense fallback={<Skeleton height={300} />}>
          <Chart name="spend-over-time" option={option} height={300} ariaLabel={t('dashboard.spend.chartLabel', { by: dimensionLabel(t, groupBy) })} />
        </Suspense>
      ) : null}
    </Section>
  );
}

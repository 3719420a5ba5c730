import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { DateRangePicker, useUrlDateRange } from '../../components/DateRangePicker';
import { DASHBOARD_RANGE, type RangeOptions } from '../../dateRange';
import { CostBasisToggle, useCostBasis } from './CostBasis';
import { FleetHeatmap } from './FleetHeatmap';
import { KpiCards } from './KpiCards';
import { PhaseBreakdown } from './PhaseBreakdown';
import { SpendOverTime } from './SpendOverTime';
import { SyncHealth } from './SyncHealth';
import { TopRecommendations } from './TopRecommendations';
import type { OverviewScope } from './types';

/** The dashboard's range (the Projects and Instances pages' too). The month-to-date cards ignore it. */
export const OVERVIEW_RANGE: RangeOptions = DASHBOARD_RANGE;

/**
 * The team lead's view of the organization or of one project: this month's money against the budget, then
 * the page's days (spend over time, phases and waste, the hour-of-week heatmap), then what to do about it.
 */
export function OverviewSections({ scope }: { scope: OverviewScope }) {
  const { t } = useTranslation();
  // The charts' code (ECharts, its own chunk) is fetched while the data loads, not after it arrived.
  useEffect(() => {
    void import('../../components/Chart');
  }, []);
  const range = useUrlDateRange(scope.timeZone, OVERVIEW_RANGE);
  // Amortized unless asked otherwise: a renewal spread over the days it covers, not one day's lump.
  const [basis, setBasis] = useCostBasis();
  // /costs and /utilization read inclusive local days.
  const days = { start: range.range.from, end: range.range.to };
  return (
    <div className="ov" data-testid="overview-sections">
      <KpiCards scope={scope} />
      <div className="ov-range">
        <h2 className="ov-range__title">{t(`dateRange.preset.${range.range.preset}`)}</h2>
        <DateRangePicker value={range} />
        <CostBasisToggle value={basis} onChange={setBasis} />
      </div>
      <SpendOverTime scope={scope} days={days} basis={basis} />
      <div className="ov-grid">
        <PhaseBreakdown scope={scope} days={days} />
        <FleetHeatmap scope={scope} days={days} />
        <TopRecommendations scope={scope} />
        <SyncHealth scope={scope} />
      </div>
    </div>
  );
}

/**
 * The instance's daily cost as bars, stacked by phase when the report is grouped by phase
 * (`/costs?granularity=day&group_by=phase&instance=ins-…`), one bar otherwise. Pure.
 */
import type { ChartOption } from '../../components/Chart';
import { tooltipHtml, tooltipParams } from '../../components/chartText';
import type { Phase } from '../../api/types';
import type { Translate } from './offWindowWords';

/** The part of a cost report the chart reads (`CostReport` of the schema). */
export interface DailyCostReport {
  buckets: string[];
  currency: string;
  total: string;
  group_by: string[];
  groups: {
    keys: { dimension: string; value: string | null; label: string }[];
    cost: string;
    series: { period_start: string; cost: string }[];
  }[];
}

export interface DailyCostOptionInput {
  report: DailyCostReport;
  phases: readonly Phase[];
  phaseColors: Record<Phase, string>;
  phaseLabels: Record<Phase, string>;
  t: Translate;
  formatMoney: (amount: string) => string;
  /** A bucket's day ("2026-10-27") as the axis shows it. */
  formatDay: (day: string) => string;
}

export interface CostStack {
  /** Phase key, or null for the ungrouped total. */
  phase: Phase | null;
  values: number[];
}

/**
 * One stack per phase with money in the period (display order), values per bucket; a report that is not
 * grouped by phase is one stack of the total.
 */
export function dailyCostStacks(report: DailyCostReport, phases: readonly Phase[]): CostStack[] {
  const values = (series: DailyCostReport['groups'][number]['series']) => {
    const byDay = new Map(series.map((p) => [p.period_start, Number(p.cost)]));
    return report.buckets.map((day) => byDay.get(day) ?? 0);
  };
  if (report.group_by.length !== 1 || report.group_by[0] !== 'phase') {
    const sums = report.buckets.map((_, i) => report.groups.reduce((acc, g) => acc + values(g.series)[i]!, 0));
    return [{ phase: null, values: sums }];
  }
  const byPhase = new Map(report.groups.map((g) => [g.keys[0]?.value ?? 'unknown', g]));
  return phases
    .filter((p) => byPhase.has(p) && Number(byPhase.get(p)!.cost) !== 0)
    .map((phase) => ({ phase, values: values(byPhase.get(phase)!.series) }));
}

export function dailyCostOption(input: DailyCostOptionInput): ChartOption {
  const { report, phases, phaseColors, phaseLabels, t, formatMoney, formatDay } = input;
  const stacks = dailyCostStacks(report, phases);
  const name = (s: CostStack) => (s.phase ? phaseLabels[s.phase] : t('instanceDetail.dailyCost.cost'));
  return {
    animation: false,
    legend: stacks.length > 1 ? { top: 0, data: stacks.map(name) } : undefined,
    grid: { left: 64, right: 16, top: stacks.length > 1 ? 36 : 16, bottom: 32 },
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      formatter: (raw) => {
        const params = tooltipParams(raw);
        const day = report.buckets[params[0]?.dataIndex ?? 0] ?? '';
        const lines = params
          .filter((p) => Number(p.value) > 0)
          .map((p) => ({ marker: p.marker, text: `${p.seriesName ?? ''}: ${formatMoney(String(p.value))}` }));
        const total = params.reduce((acc, p) => acc + Number(p.value ?? 0), 0);
        return tooltipHtml([formatDay(day), ...lines, formatMoney(total.toFixed(2))]);
      },
    },
    xAxis: { type: 'category', data: report.buckets.map(formatDay), axisLabel: { hideOverlap: true } },
    yAxis: { type: 'value', axisLabel: { formatter: (v: number) => formatMoney(String(v)) } },
    series: stacks.map((s) => ({
      type: 'bar' as const,
      name: name(s),
      stack: 'cost',
      barMaxWidth: 28,
      itemStyle: s.phase ? { color: phaseColors[s.phase] } : undefined,
      data: s.values,
    })),
  } as ChartOption;
}

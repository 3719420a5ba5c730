/** The stacked "spend over time" bars: one series per group of the cost report, unallocated apart. */
import type { ChartOption } from '../../components/Chart';
import { tooltipHtml, tooltipParams } from '../../components/chartText';
import { formatMoney, sumDecimals } from '../../money';
import type { CostGroup, CostReport } from '../../api/types';

/** Dimensions the chart can stack by (a tag key is `tag:<key>`). */
export const BASE_DIMENSIONS = ['project', 'instance_type', 'charge_type'] as const;
/** More groups than this are summed into one "other" series: a stack of 30 colours reads as noise. */
export const MAX_SERIES = 8;
export const UNALLOCATED_COLOR = '#9aa3ae';
export const OTHER_COLOR = '#c9ced6';

export interface SpendSeries {
  /** The group's value, '__unallocated__' or '__other__'. */
  id: string;
  name: string;
  total: string;
  /** One decimal string per bucket. */
  costs: string[];
  kind: 'group' | 'unallocated' | 'other';
}

export interface SpendLabels {
  unallocated: string;
  other: string;
}

function costsOf(group: CostGroup, buckets: string[]): string[] {
  const byBucket = new Map(group.series.map((p) => [p.period_start, p.cost]));
  return buckets.map((b) => byBucket.get(b) ?? '0.00');
}

function isUnallocated(group: CostGroup): boolean {
  return group.keys[0]?.value == null;
}

/**
 * The report's groups as series, largest first: at most MAX_SERIES of them, the rest summed into "other",
 * and the cost without a value of the dimension (no project, no tag) as its own "unallocated" series last,
 * so it is never hidden among the others. Groups without money are left out.
 */
export function spendSeries(report: Pick<CostReport, 'buckets' | 'groups'>, labels: SpendLabels): SpendSeries[] {
  const buckets = report.buckets;
  const spent = report.groups.filter((g) => Number(g.cost) !== 0);
  const named = spent
    .filter((g) => !isUnallocated(g))
    .sort((a, b) => Number(b.cost) - Number(a.cost) || (a.keys[0]?.label ?? '').localeCompare(b.keys[0]?.label ?? ''));
  const shown = named.slice(0, MAX_SERIES);
  const rest = named.slice(MAX_SERIES);
  const series: SpendSeries[] = shown.map((g) => ({
    id: g.keys[0]?.value ?? '',
    name: g.keys[0]?.label ?? '',
    total: g.cost,
    costs: costsOf(g, buckets),
    kind: 'group',
  }));
  if (rest.length > 0) {
    const costs = rest.map((g) => costsOf(g, buckets));
    series.push({
      id: '__other__',
      name: labels.other,
      total: sumDecimals(rest.map((g) => g.cost)),
      costs: buckets.map((_, i) => sumDecimals(costs.map((c) => c[i]))),
      kind: 'other',
    });
  }
  const unallocated = spent.filter(isUnallocated);
  if (unallocated.length > 0) {
    const costs = unallocated.map((g) => costsOf(g, buckets));
    series.push({
      id: '__unallocated__',
      name: labels.unallocated,
      total: sumDecimals(unallocated.map((g) => g.cost)),
      costs: buckets.map((_, i) => sumDecimals(costs.map((c) => c[i]))),
      kind: 'unallocated',
    });
  }
  return series;
}

/** Stacked bars, one bar per bucket; the tooltip lists each series' money and the bucket's total. */
export function spendOverTimeOption(
  buckets: string[],
  series: SpendSeries[],
  currency: string,
  totalLabel: string,
): ChartOption {
  return {
    // Drawn at once: a ten-second view should not spend a second growing bars (and ECharts reports
    // `finished`, which the page's drawn marker waits for, only after an animation ends).
    animation: false,
    grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true },
    legend: { type: 'scroll', top: 0 },
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      // Series names are project names, tag values, instance types: data, escaped by tooltipHtml.
      formatter: (raw) => {
        const items = tooltipParams(raw);
        const index = items[0]?.dataIndex ?? 0;
        const lines = items
          .filter((item) => Number(series[item.seriesIndex ?? 0]?.costs[index] ?? 0) !== 0)
          .map((item) => ({
            marker: item.marker,
            text: `${item.seriesName ?? ''}: ${formatMoney(series[item.seriesIndex ?? 0]?.costs[index], currency)}`,
          }));
        const total = sumDecimals(series.map((s) => s.costs[index]));
        return tooltipHtml([items[0]?.axisValueLabel ?? '', ...lines, `${totalLabel}: ${formatMoney(total, currency)}`]);
      },
    },
    xAxis: { type: 'category', data: buckets, axisLabel: { hideOverlap: true } },
    yAxis: {
      type: 'value',
      axisLabel: { formatter: (value: number) => formatMoney(String(value), currency).replace(/\.00$/, '') },
    },
    series: series.map((s) => ({
      type: 'bar' as const,
      name: s.name,
      stack: 'spend',
      barMaxWidth: 28,
      emphasis: { focus: 'series' as const },
      // Bar heights only; every amount shown is the API's decimal string.
      data: s.costs.map(Number),
      ...(s.kind === 'unallocated'
        ? { itemStyle: { color: UNALLOCATED_COLOR, decal: { symbol: 'rect', dashArrayX: [1, 0], dashArrayY: [2, 3], rotation: -Math.PI / 4 } } }
        : s.kind === 'other'
          ? { itemStyle: { color: OTHER_COLOR } }
          : {}),
    })),
  };
}

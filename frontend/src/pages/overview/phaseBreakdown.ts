/** GPU-hours and money per phase (from /api/v1/utilization), with the waste in money. */
import type { ChartOption } from '../../components/Chart';
import { tooltipHtml, tooltipParams } from '../../components/chartText';
import type { Phase, Usage } from '../../api/types';
import { formatDecimal, formatMoney, sumDecimals } from '../../money';
import { PHASE_COLORS, PHASE_LABELS, PHASES } from '../../phases';

/** Money on GPUs that did no useful work: idle, or waiting for data. */
export const WASTE_PHASES: Phase[] = ['idle', 'data_processing'];

export interface PhaseRow {
  phase: Phase;
  gpuHours: string;
  cost: string;
  waste: boolean;
}

/** One row per phase with GPU-hours or money, in the display order. */
export function phaseRows(usage: Pick<Usage, 'phases'>): PhaseRow[] {
  const byPhase = new Map(usage.phases.map((p) => [p.phase as Phase, p]));
  return PHASES.flatMap((phase) => {
    const p = byPhase.get(phase);
    if (!p || (Number(p.gpu_hours) === 0 && Number(p.cost) === 0)) return [];
    return [{ phase, gpuHours: p.gpu_hours, cost: p.cost, waste: WASTE_PHASES.includes(phase) }];
  });
}

/** The wasted money (idle + data-bound) and the whole phase split's money it is a share of. */
export function wasteMoney(rows: PhaseRow[]): { wasted: string; total: string } {
  return {
    wasted: sumDecimals(rows.filter((r) => r.waste).map((r) => r.cost)),
    total: sumDecimals(rows.map((r) => r.cost)),
  };
}

/**
 * Two horizontal bars per phase: money (top axis) and GPU-hours (bottom axis). Waste phases are drawn in
 * their phase colour with a hatch, and their money label says so.
 */
export function phaseBreakdownOption(
  rows: PhaseRow[],
  currency: string,
  labels: { money: string; gpuHours: string; waste: string },
): ChartOption {
  const names = rows.map((r) => PHASE_LABELS[r.phase]);
  const hatch = { symbol: 'rect', dashArrayX: [1, 0], dashArrayY: [3, 3], rotation: Math.PI / 4, color: 'rgba(255,255,255,0.45)' };
  return {
    // Drawn at once: a ten-second view should not spend a second growing bars (and ECharts reports
    // `finished`, which the page's drawn marker waits for, only after an animation ends).
    animation: false,
    grid: { left: 8, right: 96, top: 36, bottom: 8, containLabel: true },
    legend: { top: 0, data: [labels.money, labels.gpuHours] },
    tooltip: {
      trigger: 'item',
      formatter: (raw) => {
        const row = rows[tooltipParams(raw)[0]?.dataIndex ?? 0];
        if (!row) return '';
        const money = formatMoney(row.cost, currency);
        return tooltipHtml([
          PHASE_LABELS[row.phase],
          `${labels.money}: ${money}${row.waste ? ` (${labels.waste})` : ''}`,
          `${labels.gpuHours}: ${formatDecimal(row.gpuHours)}`,
        ]);
      },
    },
    yAxis: { type: 'category', data: names, inverse: true },
    xAxis: [
      // The bars carry their amounts: the axes only give the scale, with few labels so they never overlap.
      { type: 'value', position: 'top', splitNumber: 2, axisLabel: { hideOverlap: true, formatter: (v: number) => formatMoney(String(v), currency).replace(/\.00$/, '') } },
      { type: 'value', position: 'bottom', splitNumber: 2, splitLine: { show: false }, axisLabel: { hideOverlap: true } },
    ],
    series: [
      {
        type: 'bar',
        name: labels.money,
        xAxisIndex: 0,
        data: rows.map((r) => ({
          value: Number(r.cost),
          itemStyle: { color: PHASE_COLORS[r.phase], ...(r.waste ? { decal: hatch } : {}) },
        })),
        label: {
          show: true,
          position: 'right',
          // Drawn on the canvas as text (not HTML): nothing to escape.
          formatter: (raw) => {
            const row = rows[tooltipParams(raw)[0]?.dataIndex ?? 0];
            if (!row) return '';
            const money = formatMoney(row.cost, currency);
            return row.waste ? `${money} · ${labels.waste}` : money;
          },
        },
      },
      {
        type: 'bar',
        name: labels.gpuHours,
        xAxisIndex: 1,
        itemStyle: { color: '#7f8c9d', opacity: 0.55 },
        data: rows.map((r) => Number(r.gpuHours)),
      },
    ],
  };
}

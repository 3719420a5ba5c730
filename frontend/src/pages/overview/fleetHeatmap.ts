/** The fleet's hour-of-week heatmap: 7 weekdays x 24 local hours of card-weighted GPU utilization. */
import type { ChartOption } from '../../components/Chart';
import { tooltipHtml } from '../../components/chartText';
import { formatDecimal } from '../../money';
import type { HourOfWeekCell } from '../../api/types';

/** Monday first, as the API numbers them (0 = Monday). */
export const WEEKDAY_KEYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
export const HOURS = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));

/**
 * ECharts heatmap points [hour, weekday row, utilization %]: the API already places each cell in the
 * organization's timezone, so the cell is used as is. Rows are drawn Monday at the top (row 6) to Sunday at
 * the bottom (row 0). Cells without GPU-hours (null utilization) are not drawn.
 */
export function heatmapPoints(cells: HourOfWeekCell[]): [number, number, number][] {
  return cells
    .filter((c) => c.gpu_util_avg_pct != null)
    .map((c) => [c.hour, 6 - c.weekday, Math.round((c.gpu_util_avg_pct ?? 0) * 10) / 10]);
}

export function fleetHeatmapOption(
  cells: HourOfWeekCell[],
  weekdayNames: string[],
  labels: { cell: (when: { day: string; hour: string }, pct: string, gpuHours: string) => string; utilization: string },
): ChartOption {
  const byKey = new Map(cells.map((c) => [`${c.weekday}-${c.hour}`, c]));
  const rows = [...weekdayNames].reverse();
  return {
    // Drawn at once: a ten-second view should not spend a second growing bars (and ECharts reports
    // `finished`, which the page's drawn marker waits for, only after an animation ends).
    animation: false,
    grid: { left: 8, right: 8, top: 8, bottom: 48, containLabel: true },
    tooltip: {
      formatter: (raw) => {
        const value = (raw as { value?: [number, number, number] }).value;
        if (!value) return '';
        const [hour, row] = value;
        const weekday = 6 - row;
        const cell = byKey.get(`${weekday}-${hour}`);
        return tooltipHtml([
          labels.cell(
            { day: weekdayNames[weekday] ?? '', hour: `${HOURS[hour]}:00` },
            formatDecimal(String(cell?.gpu_util_avg_pct ?? 0), 1),
            formatDecimal(String(cell?.gpu_hours ?? 0), 1),
          ),
        ]);
      },
    },
    xAxis: { type: 'category', data: HOURS, splitArea: { show: true } },
    yAxis: { type: 'category', data: rows, splitArea: { show: true } },
    visualMap: {
      min: 0,
      max: 100,
      calculable: false,
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      text: ['100%', '0%'],
      itemHeight: 120,
      inRange: { color: ['#eef3fb', '#1f3f8a'] },
    },
    series: [
      {
        type: 'heatmap',
        name: labels.utilization,
        data: heatmapPoints(cells),
        emphasis: { itemStyle: { borderColor: '#333', borderWidth: 1 } },
      },
    ],
  };
}

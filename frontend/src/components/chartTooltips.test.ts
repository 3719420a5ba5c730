/**
 * Every chart's tooltip shows hostile names as text. Names in charts come from data (project names a write
 * key can change, Tencent Cloud tag values and instance names anyone in the cloud account can set), and an
 * ECharts tooltip is HTML: the option of each builder is drawn by ECharts itself (SVG renderer, which needs
 * no canvas), its tooltip shown at points, and the tooltip's DOM must hold the names as text, with no element
 * or attribute they brought.
 */
import { afterEach, describe, expect, it } from 'vitest';
import * as echarts from 'echarts/core';
import { BarChart, HeatmapChart, LineChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, MarkAreaComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { ChartOption } from './Chart';
import { escapeHtml, tooltipHtml, withEscapingTooltips } from './chartText';
import { i18n } from '../i18n';
import { PHASE_COLORS, PHASES } from '../phases';
import { spendOverTimeOption, spendSeries } from '../pages/overview/spendOverTime';
import { phaseBreakdownOption } from '../pages/overview/phaseBreakdown';
import { fleetHeatmapOption } from '../pages/overview/fleetHeatmap';
import { dailyCostOption } from '../pages/instance/dailyCostOption';
import { instanceTimeseriesOption } from '../pages/instance/timeseriesOption';
import { dailyPhaseOption, hourOfWeekOption } from '../pages/recommendations/evidenceCharts';
import type { CostGroup, Phase } from '../api/types';

echarts.use([
  BarChart,
  LineChart,
  HeatmapChart,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  VisualMapComponent,
  DataZoomComponent,
  MarkAreaComponent,
  SVGRenderer,
]);

// Each would run if it became HTML: an image's error handler, an SVG's load handler, a script element.
const IMG = '<img src=x onerror="window.__xss=1">';
const SVG = '"><svg onload=window.__xss=1>';
const SCRIPT = '</script><script>window.__xss=1</script>';
const HOSTILE = [IMG, SVG, SCRIPT];

const charts: echarts.ECharts[] = [];
afterEach(() => {
  for (const chart of charts.splice(0)) chart.dispose();
  document.body.innerHTML = '';
});

/** Draws the option as the Chart component does and returns the tooltip's element at each point. */
function tooltipsOf(option: ChartOption, points: { seriesIndex: number; dataIndex: number }[]): HTMLElement[] {
  const el = document.createElement('div');
  document.body.appendChild(el);
  const chart = echarts.init(el, undefined, { renderer: 'svg', width: 800, height: 400 });
  charts.push(chart);
  chart.setOption({ animation: false, ...withEscapingTooltips(option) });
  return points.map((point) => {
    chart.dispatchAction({ type: 'showTip', ...point });
    // ECharts appends its tooltip to the chart's element, after the renderer's own.
    const tooltip = el.lastElementChild as HTMLElement | null;
    expect(tooltip, 'no tooltip was shown').not.toBeNull();
    expect(el.children.length).toBeGreaterThan(1);
    return tooltip!.cloneNode(true) as HTMLElement;
  });
}

/** The tooltip shows each text literally, and holds only the markup ECharts and chartText write. */
function expectShownAsText(tooltip: HTMLElement, texts: string[]): void {
  for (const element of tooltip.querySelectorAll('*')) {
    expect(['div', 'span', 'br']).toContain(element.tagName.toLowerCase());
    for (const attribute of Array.from(element.attributes)) expect(['style', 'class']).toContain(attribute.name);
  }
  for (const text of texts) expect(tooltip.textContent).toContain(text);
  expect((window as { __xss?: unknown }).__xss).toBeUndefined();
}

function costGroup(label: string, value: string | null, costs: string[]): CostGroup {
  return {
    keys: [{ dimension: 'project', value, label }],
    cost: costs.reduce((a, c) => a + Number(c), 0).toFixed(2),
    previous_cost: '0.00',
    series: costs.map((cost, i) => ({ period_start: `2026-11-0${i + 1}`, cost })),
  };
}

const hostilePhaseLabels = Object.fromEntries(PHASES.map((p, i) => [p, HOSTILE[i % HOSTILE.length]!])) as Record<Phase, string>;

describe('chartText', () => {
  it('escapes every character HTML gives a meaning to', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(12.5)).toBe('12.5');
  });

  it('keeps ECharts\' marker and its own line breaks, and escapes the text', () => {
    const marker = '<span style="background-color:#123456;"></span>';
    expect(tooltipHtml([IMG, { marker, text: `${SVG}: 3` }])).toBe(`${escapeHtml(IMG)}<br/>${marker}${escapeHtml(SVG)}: 3`);
  });

  it('gives a tooltip without a formatter an escaping one, and leaves a formatter in place', () => {
    const own = () => 'own';
    expect(withEscapingTooltips({ tooltip: { trigger: 'axis', formatter: own } }).tooltip).toEqual({ trigger: 'axis', formatter: own });
    const option: ChartOption = withEscapingTooltips({ tooltip: { trigger: 'item' } });
    expect(typeof (option.tooltip as { formatter?: unknown }).formatter).toBe('function');
    const without: ChartOption = { series: [] };
    expect(withEscapingTooltips(without)).toEqual({ series: [] });
  });
});

describe('every chart shows hostile names in its tooltip as text', () => {
  it('spend over time: project names, tag values and the day', () => {
    const buckets = ['2026-11-01', '2026-11-02'];
    const groups = HOSTILE.map((name, i) => costGroup(name, `p${i}`, [`${10 + i}.00`, '1.00']));
    const series = spendSeries({ buckets, groups }, { unallocated: 'Unallocated', other: 'Other' });
    const option = spendOverTimeOption(buckets, series, 'CNY', 'Total');
    (option.xAxis as { data: string[] }).data = [IMG, buckets[1]!];
    const [tooltip] = tooltipsOf(option, [{ seriesIndex: 0, dataIndex: 0 }]);
    expectShownAsText(tooltip!, [...HOSTILE, 'Total']);
  });

  it('phases: the phase and its labels', () => {
    const rows = [{ phase: 'idle' as Phase, gpuHours: '4.0', cost: '12.00', waste: true }];
    const option = phaseBreakdownOption(rows, 'CNY', { money: IMG, gpuHours: SVG, waste: SCRIPT });
    const [tooltip] = tooltipsOf(option, [{ seriesIndex: 0, dataIndex: 0 }]);
    expectShownAsText(tooltip!, HOSTILE);
  });

  it('the fleet heatmap: the weekday and the cell', () => {
    const cells = [{ weekday: 0, hour: 9, gpu_util_avg_pct: 50, gpu_hours: 2 }];
    const weekdays = [IMG, SVG, SCRIPT, 'Thu', 'Fri', 'Sat', 'Sun'];
    const option = fleetHeatmapOption(cells as Parameters<typeof fleetHeatmapOption>[0], weekdays, {
      cell: (when, pct) => `${when.day} ${when.hour} ${pct}%`,
      utilization: SVG,
    });
    const [tooltip] = tooltipsOf(option, [{ seriesIndex: 0, dataIndex: 0 }]);
    expectShownAsText(tooltip!, [IMG, '09:00']);
  });

  it("an instance's daily cost: the series and the day", () => {
    const report = {
      buckets: ['2026-10-26'],
      currency: 'CNY',
      total: '5.00',
      group_by: ['phase'],
      groups: [{ keys: [{ dimension: 'phase', value: 'idle', label: 'idle' }], cost: '5.00', series: [{ period_start: '2026-10-26', cost: '5.00' }] }],
    };
    const option = dailyCostOption({
      report,
      phases: PHASES,
      phaseColors: PHASE_COLORS,
      phaseLabels: hostilePhaseLabels,
      t: i18n.getFixedT('en'),
      formatMoney: (a) => `¥${a}`,
      formatDay: () => SVG,
    });
    const [tooltip] = tooltipsOf(option, [{ seriesIndex: 0, dataIndex: 0 }]);
    expectShownAsText(tooltip!, [hostilePhaseLabels.idle, SVG, '¥5']);
  });

  it("an instance's time series: the metrics' names and the moment", () => {
    const T0 = Date.parse('2026-10-26T00:00:00Z');
    const option = instanceTimeseriesOption({
      points: [{ t: new Date(T0).toISOString(), gpu_util_pct: 90, gpu_mem_used_pct: 60, cpu_util_pct: 20, gpu_temp_c: 70 }],
      resolution: 'hour',
      bands: [{ phase: 'idle', start: T0, end: T0 + 3_600_000 }],
      phaseColors: PHASE_COLORS,
      phaseLabels: hostilePhaseLabels,
      // The point in the middle of the axis, where the pointer finds it.
      start: T0 - 43_200_000,
      end: T0 + 43_200_000,
      t: () => IMG,
      formatTime: () => SCRIPT,
    });
    const [tooltip] = tooltipsOf(option, [{ seriesIndex: 0, dataIndex: 0 }]);
    expectShownAsText(tooltip!, [IMG, SCRIPT, '90%']);
  });

  it("a recommendation's evidence: the hour-of-week profile and the days by phase", () => {
    const p95 = Array.from({ length: 7 }, () => Array.from({ length: 24 }, () => 10));
    const profile = hourOfWeekOption({ p95, window: null, thresholdPct: 20 });
    const daily = dailyPhaseOption({ days: ['2026-10-26'], minutes: Object.fromEntries(PHASES.map((p) => [p, [60]])) as Record<Phase, number[]> });
    for (const option of [profile, daily]) {
      // Their names are the UI's own words; a name that were data would still be text.
      for (const [i, series] of (option.series as { name: string }[]).entries()) series.name = HOSTILE[i % HOSTILE.length]!;
      (option.xAxis as { data: string[] }).data[0] = SVG;
      const [tooltip] = tooltipsOf(option, [{ seriesIndex: 1, dataIndex: 0 }]);
      expectShownAsText(tooltip!, [SVG, SCRIPT]);
    }
  });

  it('a chart whose builder gave no formatter: item and axis tooltips alike', () => {
    for (const trigger of ['item', 'axis'] as const) {
      const option: ChartOption = {
        tooltip: { trigger },
        xAxis: { type: 'category', data: [SCRIPT] },
        yAxis: { type: 'value' },
        series: [{ type: 'bar', name: IMG, data: [{ name: SVG, value: 3 }] }],
      };
      const [tooltip] = tooltipsOf(option, [{ seriesIndex: 0, dataIndex: 0 }]);
      expectShownAsText(tooltip!, [IMG, trigger === 'axis' ? SCRIPT : SVG]);
    }
  });
});

import { useEffect, useRef } from 'react';
import * as echarts from 'echarts/core';
import { BarChart, CustomChart, HeatmapChart, LineChart, PieChart } from 'echarts/charts';
import {
  DatasetComponent,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { useResolvedTheme } from '../theme';
import { withEscapingTooltips } from './chartText';
import type { ComposeOption } from 'echarts/core';
import type {
  BarSeriesOption,
  CustomSeriesOption,
  HeatmapSeriesOption,
  LineSeriesOption,
  PieSeriesOption,
} from 'echarts/charts';
import type {
  DatasetComponentOption,
  DataZoomComponentOption,
  GridComponentOption,
  LegendComponentOption,
  MarkAreaComponentOption,
  TooltipComponentOption,
  VisualMapComponentOption,
} from 'echarts/components';

// Tree-shaken: only the pieces registered here end up in the bundle.
echarts.use([
  LineChart,
  BarChart,
  CustomChart,
  PieChart,
  HeatmapChart,
  GridComponent,
  DataZoomComponent,
  MarkAreaComponent,
  VisualMapComponent,
  TooltipComponent,
  LegendComponent,
  DatasetComponent,
  CanvasRenderer,
]);

export type ChartOption = ComposeOption<
  | LineSeriesOption
  | BarSeriesOption
  | CustomSeriesOption
  | PieSeriesOption
  | HeatmapSeriesOption
  | GridComponentOption
  | DataZoomComponentOption
  | MarkAreaComponentOption
  | VisualMapComponentOption
  | TooltipComponentOption
  | LegendComponentOption
  | DatasetComponentOption
>;

export interface ChartProps {
  option: ChartOption;
  height?: number | string;
  className?: string;
  ariaLabel?: string;
  /** Names the chart for browser tests and the dashboard bench: `[data-chart="<name>"]`. */
  name?: string;
  /** More `data-*` attributes on the container (e.g. what a browser test counts: `data-phase-bands`). */
  dataAttributes?: Record<`data-${string}`, string | number>;
  /** Called after the user zooms (dataZoom), with the first dataZoom's window in percent of the axis. */
  onZoom?: (window: { startPct: number; endPct: number }) => void;
}

/**
 * A thin React wrapper around an ECharts instance: created on mount, resized with the window, disposed on unmount.
 * Tooltips are HTML: their text goes through `chartText` (a tooltip without a formatter gets its escaping one).
 */
export function Chart({ option, height = 320, className, ariaLabel, name, dataAttributes, onZoom }: ChartProps) {
  const containerRef = useRef<HTMLDivElement | null>(null);
  const chartRef = useRef<echarts.ECharts | null>(null);
  const optionRef = useRef(option);
  optionRef.current = option;
  const onZoomRef = useRef(onZoom);
  onZoomRef.current = onZoom;
  const theme = useResolvedTheme();

  // A theme change needs a new instance (ECharts themes apply at init); the current option is drawn again.
  useEffect(() => {
    const el = containerRef.current;
    if (!el) return;
    const chart = echarts.init(el, theme === 'dark' ? 'dark' : undefined, { renderer: 'canvas' });
    // `data-drawn` tells a browser test (and the dashboard bench) that pixels are on the canvas,
    // not merely that the component mounted: ECharts fires `finished` once rendering is done.
    el.removeAttribute('data-drawn');
    chart.on('finished', () => el.setAttribute('data-drawn', 'true'));
    chart.on('datazoom', () => {
      const zoom = (chart.getOption() as { dataZoom?: { start?: number; end?: number }[] }).dataZoom?.[0];
      if (zoom) onZoomRef.current?.({ startPct: zoom.start ?? 0, endPct: zoom.end ?? 100 });
    });
    chart.setOption({ backgroundColor: 'transparent', ...withEscapingTooltips(optionRef.current) }, { notMerge: true });
    chartRef.current = chart;
    const onResize = () => chart.resize();
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
      chart.dispose();
      chartRef.current = null;
    };
  }, [theme]);

  useEffect(() => {
    chartRef.current?.setOption({ backgroundColor: 'transparent', ...withEscapingTooltips(option) }, { notMerge: true });
  }, [option]);

  return (
    <div
      ref={containerRef}
      className={className ?? 'chart'}
      style={{ width: '100%', height }}
      role="img"
      aria-label={ariaLabel}
      data-testid="chart"
      data-chart={name}
      {...dataAttributes}
    />
  );
}

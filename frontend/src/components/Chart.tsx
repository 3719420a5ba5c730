import { useEffect, useRef } from 'react';
import * as echarts from 'echarts/core';
import { BarChart, CustomChart, LineChart, PieChart } from 'echarts/charts';
import { DatasetComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { useResolvedTheme } from '../theme';
import type { ComposeOption } from 'echarts/core';
import type { BarSeriesOption, CustomSeriesOption, LineSeriesOption, PieSeriesOption } from 'echarts/charts';
import type {
  DatasetComponentOption,
  GridComponentOption,
  LegendComponentOption,
  TooltipComponentOption,
} from 'echarts/components';

// Tree-shaken: only the pieces registered here end up in the bundle.
echarts.use([
  LineChart,
  BarChart,
  CustomChart,
  PieChart,
  GridComponent,
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
  | GridComponentOption
  | TooltipComponentOption
  | LegendComponentOption
  | DatasetComponentOption
>;

export interface ChartProps {
  option: ChartOption;
  height?: number | string;
  className?: string;
  ariaLabel?: string;
}

/** A thin React wrapper around an ECharts instance: created on mount, resized with the window, disposed on unmount. */
export function Chart({ option, height = 320, className, ariaLabel }: ChartProps) {
  const containerRef = useRef<HTMLDivElement | null>(null);
  const chartRef = useRef<echarts.ECharts | null>(null);
  const optionRef = useRef(option);
  optionRef.current = option;
  const theme = useResolvedTheme();

  // A theme change needs a new instance (ECharts themes apply at init); the current option is drawn again.
  useEffect(() => {
    const el = containerRef.current;
    if (!el) return;
    const chart = echarts.init(el, theme === 'dark' ? 'dark' : undefined, { renderer: 'canvas' });
    chart.setOption({ backgroundColor: 'transparent', ...optionRef.current }, { notMerge: true });
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
    chartRef.current?.setOption({ backgroundColor: 'transparent', ...option }, { notMerge: true });
  }, [option]);

  return (
    <div
      ref={containerRef}
      className={className ?? 'chart'}
      style={{ width: '100%', height }}
      role="img"
      aria-label={ariaLabel}
      data-testid="chart"
    />
  );
}

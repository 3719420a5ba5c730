import { useMemo } from 'react';
import { Chart, type ChartOption } from '../components/Chart';

export interface DailySpendPoint {
  date: string; // YYYY-MM-DD in the organization's timezone
  cost: number;
  gpuUtilization: number | null; // 0..100
}

function spendOption(points: DailySpendPoint[], currency: string): ChartOption {
  return {
    tooltip: { trigger: 'axis' },
    legend: { data: [`Spend (${currency})`, 'GPU utilization (%)'], top: 0 },
    grid: { left: 56, right: 56, top: 40, bottom: 32 },
    xAxis: { type: 'category', data: points.map((p) => p.date) },
    yAxis: [
      { type: 'value', name: currency },
      { type: 'value', name: '%', min: 0, max: 100 },
    ],
    series: [
      { name: `Spend (${currency})`, type: 'bar', data: points.map((p) => p.cost), itemStyle: { color: '#3b6fd8' } },
      {
        name: 'GPU utilization (%)',
        type: 'line',
        yAxisIndex: 1,
        smooth: true,
        data: points.map((p) => p.gpuUtilization),
        itemStyle: { color: '#e08a2c' },
      },
    ],
  };
}

export default function SpendChart({ points, currency }: { points: DailySpendPoint[]; currency: string }) {
  const option = useMemo(() => spendOption(points, currency), [points, currency]);
  return <Chart option={option} height={320} ariaLabel="Daily GPU spend and utilization" />;
}


import { useMemo } from 'react';
import type { CustomSeriesRenderItem } from 'echarts';
import { Chart, type ChartOption } from '../components/Chart';
import type { Phase, PhaseSegment } from '../api/untypedEndpoints';
import { formatMinutes, PHASE_COLORS, PHASE_LABELS, PHASES } from '../phases';
import { i18n, intlLocale } from '../i18n';

export interface PhaseTimelineProps {
  segments: PhaseSegment[];
  /** The period shown (ISO), so the axis spans it even where there are no segments. */
  start: string;
  end: string;
  timeZone: string;
}

const timeFormatters = new Map<string, Intl.DateTimeFormat>();

function timeFormatter(timeZone: string, withDate: boolean): Intl.DateTimeFormat {
  const locale = intlLocale();
  const key = `${locale}|${timeZone}|${withDate}`;
  let f = timeFormatters.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      ...(withDate ? { day: 'numeric', month: 'short' } : {}),
    };
    try {
      f = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    } catch {
      f = new Intl.DateTimeFormat(locale, options);
    }
    timeFormatters.set(key, f);
  }
  return f;
}

/** A moment in the organization's timezone: "27 Oct, 14:05". */
export function formatMoment(ms: number, timeZone: string): string {
  return timeFormatter(timeZone, true).format(new Date(ms));
}

/** Bands on one row: x from start to end of each segment, clipped to the plot area. */
const renderBand: CustomSeriesRenderItem = (params, api) => {
  const from = api.coord([api.value(0), 0]);
  const to = api.coord([api.value(1), 0]);
  const height = (api.size?.([0, 1]) as number[] | undefined)?.[1] ?? 40;
  const bandHeight = height * 0.7;
  const area = params.coordSys as unknown as { x: number; y: number; width: number; height: number };
  const x0 = Math.max(from[0]!, area.x);
  const x1 = Math.min(to[0]!, area.x + area.width);
  if (x1 <= x0) return null;
  return {
    type: 'rect',
    transition: ['shape'],
    shape: { x: x0, y: from[1]! - bandHeight / 2, width: Math.max(x1 - x0, 1), height: bandHeight },
    style: { fill: api.visual('color') as string },
  };
};

interface TooltipParams {
  seriesName?: string;
  value?: unknown;
}

export function phaseTimelineOption({ segments, start, end, timeZone }: PhaseTimelineProps): ChartOption {
  const byPhase = new Map<Phase, PhaseSegment[]>(PHASES.map((p) => [p, []]));
  for (const s of segments) byPhase.get(s.phase)?.push(s);
  const startMs = new Date(start).getTime();
  const endMs = new Date(end).getTime();
  const days = (endMs - startMs) / 86_400_000;

  return {
    tooltip: {
      trigger: 'item',
      formatter: (raw) => {
        const p = raw as TooltipParams;
        const [from, to, , minutes, util] = (p.value ?? []) as [number, number, number, number, number | null];
        const utilText = util == null ? i18n.t('chart.noUtil') : i18n.t('chart.meanUtil', { pct: Math.round(util) });
        const when = i18n.t('chart.segment', {
          from: formatMoment(from, timeZone),
          to: formatMoment(to, timeZone),
          duration: formatMinutes(minutes),
        });
        return `${p.seriesName ?? ''}<br/>${when}<br/>${utilText}`;
      },
    },
    legend: { top: 0, data: PHASES.map((p) => PHASE_LABELS[p]) },
    grid: { left: 24, right: 32, top: 36, bottom: 28 },
    xAxis: {
      type: 'time',
      min: startMs,
      max: endMs,
      axisLabel: {
        hideOverlap: true,
        formatter: (value: number) => timeFormatter(timeZone, days > 1.5).format(new Date(value)),
      },
    },
    yAxis: { type: 'category', data: ['GPU'], axisTick: { show: false }, axisLabel: { show: false } },
    series: PHASES.map((phase) => ({
      type: 'custom' as const,
      name: PHASE_LABELS[phase],
      renderItem: renderBand,
      itemStyle: { color: PHASE_COLORS[phase] },
      encode: { x: [0, 1], y: 2 },
      data: (byPhase.get(phase) ?? []).map((s) => [
        new Date(s.start_at).getTime(),
        new Date(s.end_at).getTime(),
        0,
        s.minutes,
        s.mean_gpu_util_pct,
      ]),
    })),
  };
}

export default function PhaseTimelineChart(props: PhaseTimelineProps) {
  const { segments, start, end, timeZone } = props;
  const option = useMemo(() => phaseTimelineOption({ segments, start, end, timeZone }), [segments, start, end, timeZone]);
  return <Chart option={option} height={150} ariaLabel={i18n.t('chart.timelineLabel', { timeZone })} />;
}

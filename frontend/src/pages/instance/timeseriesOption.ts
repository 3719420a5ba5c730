/**
 * The instance's zoomable time series: GPU utilization, GPU memory and CPU (%) on the left axis, GPU
 * temperature (°C) on the right, with the phases as coloured bands behind the lines (one markArea per
 * merged phase period). Pure: the API's answers go in, an ECharts option comes out.
 */
import type { ChartOption } from '../../components/Chart';
import { tooltipHtml, tooltipParams } from '../../components/chartText';
import type { Phase } from '../../api/types';
import type { Translate } from './offWindowWords';

/**
 * The most phase bands drawn at once. Each band is a rectangle ECharts redraws on every zoom step; beyond a
 * few hundred the slider stutters, and over the longest range the page shows (31 days on ~1,000 px, about
 * 45 minutes a pixel) a band shorter than that is under a pixel wide anyway. When there are more, the
 * longest are drawn and the page says how many were left out.
 */
export const MAX_PHASE_BANDS = 300;

/** Two periods of the same phase at most this far apart are one band (the minute grid's rounding). */
export const MERGE_GAP_MS = 60_000;

export const SERIES_KEYS = ['gpu_util_pct', 'gpu_mem_used_pct', 'cpu_util_pct', 'gpu_temp_c'] as const;
export type SeriesKey = (typeof SERIES_KEYS)[number];

const SERIES_COLORS: Record<SeriesKey, string> = {
  gpu_util_pct: '#1f3f8a',
  gpu_mem_used_pct: '#7b4fc4',
  cpu_util_pct: '#2a9d8f',
  gpu_temp_c: '#d1495b',
};

const SERIES_LABEL_KEYS: Record<SeriesKey, string> = {
  gpu_util_pct: 'instanceDetail.timeseries.gpuUtil',
  gpu_mem_used_pct: 'instanceDetail.timeseries.gpuMem',
  cpu_util_pct: 'instanceDetail.timeseries.cpu',
  gpu_temp_c: 'instanceDetail.timeseries.temperature',
};

export const RESOLUTION_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type Resolution = keyof typeof RESOLUTION_MS;

/** One point of `GET /instances/{id}/timeseries` (only the fields drawn). */
export interface SeriesPoint {
  t: string;
  gpu_util_pct: number | null;
  gpu_mem_used_pct: number | null;
  cpu_util_pct: number | null;
  gpu_temp_c?: number | null;
}

export interface PhasePeriod {
  phase: Phase;
  start_at: string;
  end_at: string;
}

export interface PhaseBand {
  phase: Phase;
  start: number;
  end: number;
}

export interface CappedBands {
  bands: PhaseBand[];
  /** Bands after merging, before the cap. */
  total: number;
}

/** Phase periods in time order, adjacent periods of the same phase merged into one band. */
export function mergePhaseBands(segments: readonly PhasePeriod[], gapMs = MERGE_GAP_MS): PhaseBand[] {
  const sorted = segments
    .map((s) => ({ phase: s.phase, start: Date.parse(s.start_at), end: Date.parse(s.end_at) }))
    .filter((b) => Number.isFinite(b.start) && Number.isFinite(b.end) && b.end > b.start)
    .sort((a, b) => a.start - b.start);
  const out: PhaseBand[] = [];
  for (const band of sorted) {
    const last = out[out.length - 1];
    if (last && last.phase === band.phase && band.start - last.end <= gapMs) {
      last.end = Math.max(last.end, band.end);
    } else {
      out.push({ ...band });
    }
  }
  return out;
}

/** At most `max` bands: the longest, back in time order (ties: the earlier first). */
export function capPhaseBands(bands: readonly PhaseBand[], max = MAX_PHASE_BANDS): CappedBands {
  if (bands.length <= max) return { bands: [...bands], total: bands.length };
  const kept = bands
    .map((b, i) => ({ b, i }))
    .sort((x, y) => y.b.end - y.b.start - (x.b.end - x.b.start) || x.i - y.i)
    .slice(0, max)
    .sort((x, y) => x.i - y.i)
    .map((x) => x.b);
  return { bands: kept, total: bands.length };
}

/** The phase bands the chart draws: merged, then capped. */
export function phaseBands(segments: readonly PhasePeriod[], max = MAX_PHASE_BANDS): CappedBands {
  return capPhaseBands(mergePhaseBands(segments), max);
}

/**
 * `[time, value]` pairs of one metric, with a null between two points further apart than 1.5 steps: the
 * line breaks where nothing was observed instead of drawing a straight line across the gap.
 */
export function seriesData(points: readonly SeriesPoint[], key: SeriesKey, stepMs: number): [number, number | null][] {
  const out: [number, number | null][] = [];
  let previous: number | null = null;
  for (const p of points) {
    const t = Date.parse(p.t);
    if (previous !== null && t - previous > stepMs * 1.5) out.push([previous + stepMs, null]);
    out.push([t, p[key] ?? null]);
    previous = t;
  }
  return out;
}

/** The most points the API answers (its `max_points`): it picks the finest resolution that fits. */
export const MAX_POINTS = 1500;

/** The resolution the API picks for a window (`resolution=auto`, as apps/costs/utilization.py). */
export function resolutionFor(start: number, end: number): Resolution {
  const minutes = Math.floor((end - start) / RESOLUTION_MS.minute);
  if (minutes <= MAX_POINTS) return 'minute';
  if (minutes / 60 <= MAX_POINTS) return 'hour';
  return 'day';
}

export interface TimeWindow {
  start: number;
  end: number;
}

/** The zoomed window in time, from the dataZoom's percent of the axis `period`. */
export function zoomWindow(period: TimeWindow, startPct: number, endPct: number): TimeWindow {
  const span = period.end - period.start;
  return { start: period.start + (span * startPct) / 100, end: period.start + (span * endPct) / 100 };
}

/**
 * The window to fetch again at a finer resolution, or null when the points shown are already the finest
 * the API gives for it (it never answers more than MAX_POINTS, so neither does this request). Whole
 * minutes, so that a little pan does not ask again.
 */
export function detailWindow(zoom: TimeWindow | null, shown: Resolution): TimeWindow | null {
  if (!zoom) return null;
  const window = {
    start: Math.floor(zoom.start / RESOLUTION_MS.minute) * RESOLUTION_MS.minute,
    end: Math.ceil(zoom.end / RESOLUTION_MS.minute) * RESOLUTION_MS.minute,
  };
  const finer = resolutionFor(window.start, window.end);
  return RESOLUTION_MS[finer] < RESOLUTION_MS[shown] ? window : null;
}

/** The coarse points outside the window and the fine ones inside it, in time order. */
export function withDetail<P extends { t: string }>(coarse: readonly P[], fine: readonly P[], window: TimeWindow): P[] {
  const outside = coarse.filter((p) => {
    const t = Date.parse(p.t);
    return t < window.start || t >= window.end;
  });
  return [...outside, ...fine].sort((a, b) => Date.parse(a.t) - Date.parse(b.t));
}

export interface TimeseriesOptionInput {
  points: readonly SeriesPoint[];
  resolution: Resolution;
  bands: readonly PhaseBand[];
  phaseColors: Record<Phase, string>;
  phaseLabels: Record<Phase, string>;
  /** The period shown (ms), so the axis spans it even where nothing was observed. */
  start: number;
  end: number;
  t: Translate;
  /** Axis labels and tooltips: a moment in the organization's timezone. */
  formatTime: (ms: number, withDate: boolean) => string;
  /** The zoomed window, kept when the option is replaced (e.g. finer points arrived). */
  zoom?: TimeWindow | null;
}

/** The ECharts option of the instance time series. */
export function instanceTimeseriesOption(input: TimeseriesOptionInput): ChartOption {
  const { points, resolution, bands, phaseColors, phaseLabels, start, end, t, formatTime, zoom } = input;
  const kept = zoom ? { startValue: zoom.start, endValue: zoom.end } : {};
  const step = RESOLUTION_MS[resolution];
  const days = (end - start) / RESOLUTION_MS.day;
  const names = SERIES_KEYS.map((key) => t(SERIES_LABEL_KEYS[key]));
  const unit = (key: SeriesKey) => (key === 'gpu_temp_c' ? ' °C' : '%');
  return {
    animation: false,
    color: SERIES_KEYS.map((key) => SERIES_COLORS[key]),
    legend: { top: 0, data: names },
    grid: { left: 48, right: 56, top: 36, bottom: 72 },
    tooltip: {
      trigger: 'axis',
      formatter: (raw) => {
        const params = tooltipParams(raw);
        const when = (params[0]?.value as [number, number | null] | undefined)?.[0];
        const lines = params
          .filter((p) => (p.value as [number, number | null])[1] != null)
          .map((p) => {
            const key = SERIES_KEYS[p.seriesIndex ?? 0] ?? 'gpu_util_pct';
            return { marker: p.marker, text: `${p.seriesName ?? ''}: ${(p.value as [number, number])[1]}${unit(key)}` };
          });
        return tooltipHtml([when === undefined ? '' : formatTime(when, true), ...lines]);
      },
    },
    xAxis: {
      type: 'time',
      min: start,
      max: end,
      axisLabel: { hideOverlap: true, formatter: (value: number) => formatTime(value, days > 1.5) },
    },
    yAxis: [
      { type: 'value', min: 0, max: 100, interval: 25, name: t('instanceDetail.timeseries.percentAxis') },
      // 0-100 °C like the percentages (a GPU runs at 30-85 °C): a 2 °C wobble stays a wobble, not the whole height.
      {
        type: 'value',
        name: t('instanceDetail.timeseries.temperatureAxis'),
        min: 0,
        max: (extent: { max: number }) => Math.max(100, Math.ceil(extent.max / 25) * 25),
        interval: 25,
        splitLine: { show: false },
      },
    ],
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'none', ...kept },
      { type: 'slider', xAxisIndex: 0, filterMode: 'none', bottom: 12, height: 24, ...kept },
    ],
    series: SERIES_KEYS.map((key, index) => ({
      type: 'line' as const,
      name: names[index],
      yAxisIndex: key === 'gpu_temp_c' ? 1 : 0,
      showSymbol: false,
      connectNulls: false,
      sampling: 'lttb' as const,
      lineStyle: { width: key === 'gpu_util_pct' ? 2 : 1.25 },
      data: seriesData(points, key, step),
      // The bands ride on the first series: behind every line, drawn once.
      ...(index === 0
        ? {
            markArea: {
              silent: true,
              label: { show: false },
              data: bands.map((b) => [
                { xAxis: b.start, name: phaseLabels[b.phase], itemStyle: { color: phaseColors[b.phase], opacity: 0.16 } },
                { xAxis: b.end },
              ]),
            },
          }
        : {}),
    })),
  } as ChartOption;
}

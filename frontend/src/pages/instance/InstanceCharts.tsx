/**
 * The instance page's two ECharts charts, in their own chunk: ECharts loads only when there is something
 * to draw. The options come from the pure builders beside this file.
 */
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Chart } from '../../components/Chart';
import { intlLocale } from '../../i18n';
import { formatMoney } from '../../money';
import { PHASE_COLORS, PHASE_LABELS, PHASES } from '../../phases';
import type { CostReport } from '../../api/types';
import { dailyCostOption } from './dailyCostOption';
import { instanceTimeseriesOption, type PhaseBand, type Resolution, type SeriesPoint, type TimeWindow } from './timeseriesOption';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** "27 Oct, 14:05" (or "14:05") in `timeZone`, in the UI's language. */
function momentFormatter(timeZone: string, withDate: boolean): Intl.DateTimeFormat {
  const locale = intlLocale();
  const key = `${locale}|${timeZone}|${withDate}`;
  let f = formatters.get(key);
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
    formatters.set(key, f);
  }
  return f;
}

export function TimeseriesChart({
  points,
  resolution,
  bands,
  start,
  end,
  timeZone,
  zoom,
  onZoom,
}: {
  points: readonly SeriesPoint[];
  resolution: Resolution;
  bands: PhaseBand[];
  start: number;
  end: number;
  timeZone: string;
  zoom: TimeWindow | null;
  onZoom: (window: { startPct: number; endPct: number }) => void;
}) {
  const { t, i18n } = useTranslation();
  const option = useMemo(
    () =>
      instanceTimeseriesOption({
        points,
        resolution,
        bands,
        phaseColors: PHASE_COLORS,
        phaseLabels: PHASE_LABELS,
        start,
        end,
        t,
        formatTime: (ms, withDate) => momentFormatter(timeZone, withDate).format(new Date(ms)),
        zoom,
      }),
    // The language is a dependency (labels are read when the option is built). The zoom is not: ECharts holds
    // it while the user zooms; it is written into the option only when the points change (finer ones came).
    [points, resolution, bands, start, end, timeZone, t, i18n.language],
  );
  return (
    <Chart
      name="instance-timeseries"
      option={option}
      height={360}
      ariaLabel={t('instanceDetail.timeseries.label', { timeZone })}
      dataAttributes={{ 'data-phase-bands': bands.length }}
      onZoom={onZoom}
    />
  );
}

export function DailyCostChart({ report }: { report: CostReport }) {
  const { t, i18n } = useTranslation();
  const option = useMemo(() => {
    const dayFormat = new Intl.DateTimeFormat(intlLocale(), { day: 'numeric', month: 'short', timeZone: 'UTC' });
    return dailyCostOption({
      report,
      phases: PHASES,
      phaseColors: PHASE_COLORS,
      phaseLabels: PHASE_LABELS,
      t,
      formatMoney: (amount) => formatMoney(amount, report.currency),
      // A bucket is a local calendar day: formatted at noon UTC it stays that day.
      formatDay: (day) => dayFormat.format(new Date(`${day}T12:00:00Z`)),
    });
  }, [report, t, i18n.language]);
  return (
    <Chart
      name="instance-daily-cost"
      option={option}
      height={260}
      ariaLabel={t('instanceDetail.dailyCost.label', { currency: report.currency })}
    />
  );
}

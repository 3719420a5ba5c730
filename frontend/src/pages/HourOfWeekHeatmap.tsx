import { useTranslation } from 'react-i18next';
import type { OffWindow, WeekGrid } from '../api/types';
import { heatColor, heatTextRgb, rgbCss } from '../heatScale';
import { useResolvedTheme } from '../theme';

/** Monday first; the keys of the catalog's short weekday names. */
export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const HOURS = Array.from({ length: 24 }, (_, h) => h);

function hh(hour: number): string {
  return String(hour).padStart(2, '0');
}

/** The hour-of-week cells (weekday * 24 + hour) inside the off window's runs; a run's end hour is exclusive. */
export function offWindowCells(offWindow: Pick<OffWindow, 'runs'> | null | undefined): Set<number> {
  const cells = new Set<number>();
  for (const run of offWindow?.runs ?? []) {
    const first = run.start_weekday * 24 + run.start_hour;
    const last = run.end_weekday * 24 + run.end_hour;
    const hours = run.hours > 0 ? run.hours : (last - first + 168) % 168;
    for (let k = 0; k < Math.min(hours, 168); k++) cells.add((first + k) % 168);
  }
  return cells;
}

/**
 * A 7 x 24 table of p95 GPU utilization per hour of the week (Monday first, hours in `timeZone`).
 * Hours inside the off window are outlined; hours without data are left blank.
 */
export function HourOfWeekHeatmap({
  p95,
  coverage,
  offWindow,
  timeZone,
}: {
  p95: WeekGrid;
  coverage?: WeekGrid | null;
  offWindow?: OffWindow | null;
  timeZone: string;
}) {
  const off = offWindowCells(offWindow);
  const { t } = useTranslation();
  // Colours per theme (heatScale.ts): in the dark one, idle cells must not glare or vanish.
  const theme = useResolvedTheme();
  return (
    <div className="heatmap-wrap">
      <table className="heatmap" aria-label={t('heatmap.label', { timeZone })}>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">{t('heatmap.weekday')}</span>
            </th>
            {HOURS.map((h) => (
              <th key={h} scope="col">
                {hh(h)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {WEEKDAYS.map((day, d) => (
            <tr key={day} data-testid={`heatmap-${day}`}>
              <th scope="row">{t(`weekday.${day}`)}</th>
              {HOURS.map((h) => {
                const value = p95[d]?.[h];
                const cover = coverage?.[d]?.[h];
                const inOff = off.has(d * 24 + h);
                const when = t('heatmap.when', { day: t(`weekday.${day}`), from: `${hh(h)}:00`, to: `${hh((h + 1) % 24)}:00` });
                const coverText = cover == null ? '' : t('heatmap.coverage', { pct: Math.round(cover * 100) });
                if (value == null) {
                  return (
                    <td
                      key={h}
                      className={`heatmap__cell heatmap__cell--empty${inOff ? ' heatmap__cell--off' : ''}`}
                      title={t('heatmap.noData', { when })}
                    />
                  );
                }
                const pct = Math.round(value);
                return (
                  <td
                    key={h}
                    className={`heatmap__cell${inOff ? ' heatmap__cell--off' : ''}`}
                    style={{ background: heatColor(value, theme), color: rgbCss(heatTextRgb(value, theme)) }}
                    title={t('heatmap.cell', { when, pct, coverage: coverText, off: inOff ? t('heatmap.inOffWindow') : '' })}
                  >
                    {pct}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="heatmap__scale muted" aria-hidden="true">
        <span>0%</span>
        <span className="heatmap__gradient" style={{ background: `linear-gradient(90deg, ${heatColor(0, theme)}, ${heatColor(100, theme)})` }} />
        <span>{t('heatmap.scaleMax')}</span>
        {off.size > 0 && (
          <>
            <span className="heatmap__swatch heatmap__cell--off" />
            <span>{t('heatmap.offWindow')}</span>
          </>
        )}
      </div>
    </div>
  );
}

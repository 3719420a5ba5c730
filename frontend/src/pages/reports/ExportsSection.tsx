import { useTranslation } from 'react-i18next';
import { exportUrl } from '../../api/endpoints';
import { DateRangePicker, useUrlDateRange } from '../../components/DateRangePicker';
import { apiPeriod, type RangeOptions } from '../../dateRange';

/** The exports take at most 366 days; a month to date is what finance asks for most. */
export const EXPORT_RANGE: RangeOptions = { maxDays: 366, defaultPreset: 'mtd' };

/**
 * CSV and FOCUS downloads of the chosen range. Plain links: the browser sends the session cookie and
 * saves the streamed file, so a year of bill lines never passes through the page's memory.
 */
export function ExportsSection({ timeZone }: { timeZone: string }) {
  const { t } = useTranslation();
  const dateRange = useUrlDateRange(timeZone, EXPORT_RANGE);
  const period = apiPeriod(dateRange.range);
  return (
    <section className="card" aria-labelledby="exports-title">
      <h2 id="exports-title">{t('reports.exports.title')}</h2>
      <p className="muted">{t('reports.exports.intro', { timeZone })}</p>
      <DateRangePicker value={dateRange} testId="export-range" />
      <div className="downloads">
        <div className="download">
          <a className="btn btn--primary" href={exportUrl('costs', period)} download data-testid="download-costs">
            {t('reports.exports.costs')}
          </a>
          <p className="muted">{t('reports.exports.costsHelp')}</p>
        </div>
        <div className="download">
          <a className="btn" href={exportUrl('focus', period)} download data-testid="download-focus">
            {t('reports.exports.focus')}
          </a>
          <p className="muted">{t('reports.exports.focusHelp')}</p>
        </div>
      </div>
    </section>
  );
}

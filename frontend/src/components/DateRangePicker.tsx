/**
 * The date-range picker of the Overview and the instance page: presets and custom days, in the URL.
 */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import {
  customRangeProblem,
  presetRange,
  presetsFor,
  rangeFromParams,
  rangeToParams,
  todayIn,
  type DateRange,
  type RangeOptions,
  type RangePreset,
} from '../dateRange';
import { formatDate } from '../format';

export interface UrlDateRange {
  range: DateRange;
  setRange: (range: DateRange) => void;
  options: RangeOptions;
  timeZone: string;
}

/** The page's range, read from and written to the URL; "today" is today in the organization's timezone. */
export function useUrlDateRange(timeZone: string, options: RangeOptions): UrlDateRange {
  const [params, setParams] = useSearchParams();
  const today = todayIn(timeZone);
  const range = rangeFromParams(params, today, options);
  const setRange = (next: DateRange) => setParams(rangeToParams(params, next, options), { replace: true });
  return { range, setRange, options, timeZone };
}

/** Noon UTC of a calendar day, so formatting it in any timezone within ±12 h keeps the day. */
function dayAsIso(day: string): string {
  return `${day}T12:00:00Z`;
}

export function DateRangePicker({ value, testId = 'date-range' }: { value: UrlDateRange; testId?: string }) {
  const { t } = useTranslation();
  const { range, setRange, options, timeZone } = value;
  const [customOpen, setCustomOpen] = useState(range.preset === 'custom');
  const [from, setFrom] = useState(range.from);
  const [to, setTo] = useState(range.to);
  const [problem, setProblem] = useState<string | null>(null);
  const presets = presetsFor(options.maxDays);

  const choose = (preset: RangePreset) => {
    setProblem(null);
    if (preset === 'custom') {
      setFrom(range.from);
      setTo(range.to);
      setCustomOpen(true);
      return;
    }
    setCustomOpen(false);
    setRange(presetRange(preset, todayIn(timeZone)));
  };

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const why = customRangeProblem(from, to, options.maxDays);
    if (why) {
      setProblem(t(`dateRange.problem.${why}`, { maxDays: options.maxDays }));
      return;
    }
    setProblem(null);
    setRange({ preset: 'custom', from, to });
  };

  const selected = customOpen ? 'custom' : range.preset;
  return (
    <div className="date-range" data-testid={testId}>
      <div className="segmented" role="group" aria-label={t('dateRange.label')}>
        {presets.map((preset) => (
          <button
            key={preset}
            type="button"
            className={`btn btn--small${preset === selected ? ' btn--selected' : ''}`}
            aria-pressed={preset === selected}
            onClick={() => choose(preset)}
          >
            {t(`dateRange.preset.${preset}`)}
          </button>
        ))}
      </div>
      {customOpen && (
        <form className="date-range__custom" onSubmit={apply} noValidate>
          <label>
            <span>{t('dateRange.from')}</span>
            <input type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} required />
          </label>
          <label>
            <span>{t('dateRange.to')}</span>
            <input type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} required />
          </label>
          <button type="submit" className="btn btn--small btn--primary">
            {t('dateRange.apply')}
          </button>
          {problem && (
            <span className="text-danger" role="alert">
              {problem}
            </span>
          )}
        </form>
      )}
      <p className="muted date-range__shown" data-testid={`${testId}-shown`}>
        {t('dateRange.shown', {
          from: formatDate(dayAsIso(range.from), 'UTC'),
          to: formatDate(dayAsIso(range.to), 'UTC'),
          timeZone,
        })}
      </p>
    </div>
  );
}

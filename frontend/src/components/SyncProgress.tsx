/** Per-kind progress of a cloud account's sync (instances, prices, metrics, bills), from its sync status. */
import { useTranslation } from 'react-i18next';
import type { CloudAccount, SyncKind, SyncStatus } from '../api/types';
import { SYNC_KINDS } from '../api/cloudChoices';
import { translatedLabels } from '../i18n';

/** What each kind reads, as the first-run page names it. */
export const PROGRESS_LABELS: Record<SyncKind, string> = translatedLabels(SYNC_KINDS, 'syncProgress.kind');

/** The catalog key of a kind's progress: metrics count GetMonitorData requests, bills months. */
const RUNNING_KEYS: Partial<Record<SyncKind, string>> = { bills: 'syncProgress.runningMonths' };

export type KindPhase = 'waiting' | 'running' | 'retrying' | 'done' | 'failed';

export function kindPhase(status: SyncStatus): KindPhase {
  const run = status.progress;
  if (run) return run.state;
  return status.last_success_at ? 'done' : 'waiting';
}

/** Every kind has run to the end at least once (successfully): the backfill is complete. */
export function backfillDone(account: CloudAccount): boolean {
  return account.sync.length > 0 && account.sync.every((s) => kindPhase(s) === 'done');
}

function percent(done: number, planned: number): number {
  return planned > 0 ? Math.min(100, Math.round((done / planned) * 100)) : 100;
}

function KindRow({ status }: { status: SyncStatus }) {
  const { t } = useTranslation();
  const phase = kindPhase(status);
  const run = status.progress;
  const label = PROGRESS_LABELS[status.kind] ?? status.kind;
  const determinate = run?.planned !== null && run?.planned !== undefined;
  let detail: string;
  if (phase === 'waiting') detail = t('syncProgress.waiting');
  else if (phase === 'running')
    detail = determinate
      ? t(RUNNING_KEYS[status.kind] ?? 'syncProgress.running', { pct: percent(run!.done, run!.planned!), done: run!.done, planned: run!.planned })
      : t('syncProgress.reading');
  else if (phase === 'retrying') detail = t('syncProgress.retrying', { summary: run?.summary || t('syncProgress.busy') });
  else if (phase === 'failed') detail = run?.summary || status.last_error || t('syncProgress.failed');
  else detail = run?.summary || t('syncProgress.done');

  return (
    <li className={`sync-progress__row sync-progress__row--${phase}`} data-testid={`progress-${status.kind}`} data-phase={phase}>
      <div className="sync-progress__label">
        <span>{label}</span>
        <span className={phase === 'failed' ? 'text-danger' : 'muted'}>{detail}</span>
      </div>
      {(phase === 'running' && !determinate) || phase === 'retrying' ? (
        // No value: an indeterminate bar, since this kind does not report how much is left.
        <progress aria-label={t('syncProgress.readingLabel', { label })} />
      ) : (
        <progress
          aria-label={t('syncProgress.phaseLabel', { label, phase: t(`syncProgress.phase.${phase}`) })}
          max={100}
          value={phase === 'done' ? 100 : phase === 'running' ? percent(run!.done, run!.planned!) : 0}
        />
      )}
    </li>
  );
}

export function SyncProgress({ account }: { account: CloudAccount }) {
  const { t } = useTranslation();
  const byKind = [...account.sync].sort((a, b) => SYNC_KINDS.indexOf(a.kind) - SYNC_KINDS.indexOf(b.kind));
  if (byKind.length === 0) return <p className="muted">{t('cloudAccounts.noSync')}</p>;
  return (
    <ul className="sync-progress" aria-label={t('syncProgress.of', { name: account.name })}>
      {byKind.map((status) => (
        <KindRow key={status.kind} status={status} />
      ))}
    </ul>
  );
}

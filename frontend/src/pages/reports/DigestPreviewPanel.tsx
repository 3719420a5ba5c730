import { useTranslation } from 'react-i18next';
import { digestSubscriptionsApi } from '../../api/endpoints';
import type { DigestPreview } from '../../api/types';
import { ErrorBanner, Spinner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { formatDateTime } from '../../format';
import { useApiData } from '../../hooks';

/**
 * The e-mail's HTML with each `cid:` image (a MIME part in the real mail) replaced by the PNG the
 * preview returned as a data: URL, so the sandboxed frame shows the charts without fetching anything.
 */
export function previewHtml(preview: DigestPreview): string {
  return preview.html.replace(/cid:([^"'\s)>]+)/g, (whole, cid: string) => preview.images[cid] ?? whole);
}

export function DigestPreviewPanel({
  subscriptionId,
  timeZone,
  onClose,
}: {
  subscriptionId: number;
  timeZone: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const preview = useApiData(queryKeys.digestPreview(subscriptionId), (signal) =>
    digestSubscriptionsApi.preview(subscriptionId, signal),
  );
  return (
    <section className="card digest-preview" aria-labelledby="digest-preview-title" data-testid="digest-preview">
      <div className="section-header">
        <h3 id="digest-preview-title">{t('reports.preview.title')}</h3>
        <button type="button" className="btn btn--small" onClick={onClose}>
          {t('reports.preview.close')}
        </button>
      </div>
      {preview.loading && <Spinner label={t('reports.preview.loading')} />}
      <ErrorBanner error={preview.error} onRetry={preview.reload} />
      {preview.data && (
        <>
          <p>
            <strong>{t('reports.preview.subject')}</strong> {preview.data.subject}
          </p>
          <p className="muted">
            {t('reports.preview.period', {
              start: formatDateTime(preview.data.period_start, timeZone),
              end: formatDateTime(preview.data.period_end, timeZone),
            })}
          </p>
          {preview.data.html ? (
            // No allow-* token: the mail's HTML runs no script and cannot reach the page or navigate it.
            <iframe
              className="digest-preview__frame"
              title={t('reports.preview.frameTitle')}
              sandbox=""
              srcDoc={previewHtml(preview.data)}
              data-testid="digest-preview-frame"
            />
          ) : (
            <pre className="digest-preview__text" data-testid="digest-preview-text">
              {preview.data.text}
            </pre>
          )}
        </>
      )}
    </section>
  );
}

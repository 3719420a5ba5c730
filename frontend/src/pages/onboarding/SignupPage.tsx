import { Trans, useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { Link, Navigate } from 'react-router';
import { useAuth } from '../../auth/AuthContext';
import { ApiError } from '../../api/client';
import { authApi } from '../../api/endpoints';
import type { Currency, SignupCreated, Timezone } from '../../api/types';
import { AuthCard } from '../../components/AuthCard';
import { FormField } from '../../components/FormField';
import { FormErrorBanner } from '../../components/ui';
import { CURRENCY_LABELS } from '../../format';
import { toApiError } from '../../hooks';
import { currentLanguage, languageToServer } from '../../i18n';

const FIELDS = ['name', 'email', 'password', 'organization_name', 'timezone', 'currency'];

/** The browser's timezone, which is usually the team's; the API checks it against the IANA list. */
function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'Asia/Shanghai';
  } catch {
    return 'Asia/Shanghai';
  }
}

/** After sign-up: where the link went, and a way to have it sent again. */
export function CheckInbox({ sent }: { sent: SignupCreated }) {
  const { t } = useTranslation();
  const [resending, setResending] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const resend = async () => {
    setResending(true);
    setNotice(null);
    setError(null);
    try {
      const answer = await authApi.resendVerification(sent.email);
      setNotice(answer.message);
    } catch (err) {
      setError(toApiError(err).message);
    } finally {
      setResending(false);
    }
  };

  return (
    <div data-testid="signup-check-inbox">
      <h1 className="login__title">{t('signup.checkInbox')}</h1>
      <div className="alert alert--success" role="status">
        {sent.message}
      </div>
      <p className="muted">{t('signup.checkInboxBody')}</p>
      {notice && <p role="status">{notice}</p>}
      {error && (
        <div className="alert alert--error" role="alert">
          {error}
        </div>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={() => void resend()} disabled={resending}>
          {resending ? t('common.sending') : t('login.resend')}
        </button>
        <Link to="/login">{t('auth.goToSignIn')}</Link>
      </div>
    </div>
  );
}

/** /signup — create an account and its organization; the e-mailed link confirms the address. */
export function SignupPage() {
  const { status } = useAuth();
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [organizationName, setOrganizationName] = useState('');
  const [timezone, setTimezone] = useState(browserTimeZone);
  const [currency, setCurrency] = useState<Currency>('CNY');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [sent, setSent] = useState<SignupCreated | null>(null);

  if (status === 'authenticated') return <Navigate to="/" replace />;

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitting(true);
    setError(null);
    try {
      const answer = await authApi.signup({
        name: name.trim(),
        email: email.trim(),
        password,
        organization_name: organizationName.trim(),
        // Typed by the person: the server checks it is a zone and names the field when not.
        timezone: timezone.trim() as Timezone,
        currency,
        // The account starts in the language this page is shown in.
        language: languageToServer(currentLanguage()),
      });
      setSent(answer);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setSubmitting(false);
    }
  };

  if (sent) {
    return (
      <AuthCard>
        <CheckInbox sent={sent} />
      </AuthCard>
    );
  }

  const fieldError = (field: string) => error?.field(field);
  return (
    <AuthCard>
      <h1 className="login__title">{t('signup.title')}</h1>
      <p className="login__subtitle">{t('signup.subtitle')}</p>
      <FormErrorBanner error={error} inlineFields={FIELDS} />
      <form onSubmit={(e) => void onSubmit(e)} noValidate aria-label={t('signup.form')}>
        <FormField id="signup-name" label={t('signup.name')} error={fieldError('name')}>
          {(control) => (
            <input
              {...control}
              name="name"
              autoComplete="name"
              maxLength={150}
              required
              autoFocus
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </FormField>
        <FormField id="signup-email" label={t('signup.email')} error={fieldError('email')}>
          {(control) => (
            <input
              {...control}
              name="email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </FormField>
        <FormField
          id="signup-password"
          label={t('auth.password')}
          hint={t('auth.passwordHint')}
          error={fieldError('password')}
        >
          {(control) => (
            <input
              {...control}
              name="password"
              type="password"
              autoComplete="new-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </FormField>
        <FormField id="signup-organization" label={t('signup.organization')} error={fieldError('organization_name')}>
          {(control) => (
            <input
              {...control}
              name="organization_name"
              autoComplete="organization"
              maxLength={100}
              required
              placeholder={t('signup.organizationPlaceholder')}
              value={organizationName}
              onChange={(e) => setOrganizationName(e.target.value)}
            />
          )}
        </FormField>
        <div className="form-grid">
          <FormField
            id="signup-timezone"
            label={t('signup.timezone')}
            hint={t('signup.timezoneHint')}
            error={fieldError('timezone')}
          >
            {(control) => (
              <input {...control} name="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)} />
            )}
          </FormField>
          <FormField id="signup-currency" label={t('signup.currency')} error={fieldError('currency')}>
            {(control) => (
              <select {...control} value={currency} onChange={(e) => setCurrency(e.target.value as Currency)}>
                <option value="CNY">{CURRENCY_LABELS.CNY}</option>
                <option value="USD">{CURRENCY_LABELS.USD}</option>
              </select>
            )}
          </FormField>
        </div>
        <button type="submit" className="btn btn--primary btn--block" disabled={submitting}>
          {submitting ? t('signup.submitting') : t('signup.submit')}
        </button>
      </form>
      <p className="muted">
        <Trans i18nKey="signup.haveAccount" components={{ signin: <Link to="/login" /> }} />
      </p>
    </AuthCard>
  );
}

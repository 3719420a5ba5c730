import { Trans, useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useAuth } from '../auth/AuthContext';
import { ApiError } from '../api/client';
import { authApi, cloudAccountsApi } from '../api/endpoints';
import type { Me } from '../api/types';
import { FormField } from '../components/FormField';
import { LanguagePicker, ThemeToggle } from '../components/Preferences';
import { safeRedirect } from '../redirect';
import { toApiError } from '../hooks';
import { FIRST_RUN_PATH } from './onboarding/VerifyEmailPage';
import { canManageOrg } from './settings/permissions';

/**
 * Where to go after signing in to the home page: an owner or admin of an organization without a cloud account
 * goes to the first-run "Connect a Tencent Cloud account" page instead. If that cannot be told, home.
 */
async function landingPage(me: Me, from: string): Promise<string> {
  if (from !== '/' || !me.organization || !canManageOrg(me.organization.role)) return from;
  try {
    const accounts = await cloudAccountsApi.list({ page: 1, pageSize: 1 });
    return accounts.count === 0 ? FIRST_RUN_PATH : from;
  } catch {
    return from;
  }
}

/** The sign-in was refused because the address is not confirmed yet: say so, and offer the link again. */
function NotVerified({ email, message }: { email: string; message: string }) {
  const { t } = useTranslation();
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const resend = async () => {
    setSending(true);
    try {
      setNotice((await authApi.resendVerification(email)).message);
    } catch (err) {
      setNotice(toApiError(err).message);
    } finally {
      setSending(false);
    }
  };
  return (
    <div className="alert alert--warning" role="alert" data-testid="login-not-verified">
      <span>{notice ?? message}</span>
      {!notice && (
        <button type="button" className="btn btn--small" onClick={() => void resend()} disabled={sending}>
          {sending ? t('common.sending') : t('login.resend')}
        </button>
      )}
    </div>
  );
}

export function LoginPage() {
  const { status, login } = useAuth();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  // `?next=` (links such as the invitation page's) wins over the page the route guard came from.
  const from =
    safeRedirect(params.get('next')) ?? safeRedirect((location.state as { from?: string } | null)?.from) ?? '/';

  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  if (status === 'authenticated' && !submitting) return <Navigate to={from} replace />;

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim() || !password) {
      setError(new ApiError(0, 'required', t('login.required')));
      return;
    }
    setSubmitting(true);
    setError(null);
    try {
      const me = await login(email.trim(), password);
      navigate(await landingPage(me, from), { replace: true });
    } catch (err) {
      setError(
        err instanceof ApiError ? err : new ApiError(0, 'unknown', t('common.somethingWrong')),
      );
      setSubmitting(false);
    }
  };

  return (
    <div className="login">
      <div className="login__card">
        <div className="login__brand">
          <span className="logo" aria-hidden="true">
            ▦
          </span>
          <span className="product-name">GPU Ledger</span>
        </div>
        <div className="login__prefs">
          <LanguagePicker />
          <ThemeToggle />
        </div>
        <h1 className="login__title">{t('login.title')}</h1>
        <p className="login__subtitle">{t('login.subtitle')}</p>
        {error?.code === 'email_not_verified' ? (
          <NotVerified email={email.trim()} message={error.message} />
        ) : (
          error && (
            <div className={`alert ${error.code === 'locked_out' ? 'alert--warning' : 'alert--error'}`} role="alert">
              {error.message}
            </div>
          )
        )}
        <form onSubmit={(e) => void onSubmit(e)} noValidate>
          <FormField id="email" label={t('auth.email')} error={error?.field('email')}>
            {(control) => (
              <input
                {...control}
                name="email"
                type="email"
                autoComplete="username"
                required
                autoFocus
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </FormField>
          <FormField id="password" label={t('auth.password')} error={error?.field('password')}>
            {(control) => (
              <input
                {...control}
                name="password"
                type="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </FormField>
          <button type="submit" className="btn btn--primary btn--block" disabled={submitting}>
            {submitting ? t('login.signingIn') : t('login.title')}
          </button>
        </form>
        <p className="muted">
          <Trans i18nKey="login.newHere" components={{ signup: <Link to="/signup" /> }} />
        </p>
      </div>
    </div>
  );
}

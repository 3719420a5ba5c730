import { Trans, useTranslation } from 'react-i18next';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useAuth } from '../auth/AuthContext';
import { ApiError, isNotAuthenticated } from '../api/client';
import { ErrorBanner, Spinner } from '../components/ui';
import { FormField } from '../components/FormField';
import { toApiError } from '../hooks';
import { currentLanguage, languageToServer } from '../i18n';

function Card({ children }: { children: ReactNode }) {
  return (
    <div className="login">
      <div className="login__card">
        <div className="login__brand">
          <span className="logo" aria-hidden="true">
            ▦
          </span>
          <span className="product-name">GPU Ledger</span>
        </div>
        {children}
      </div>
    </div>
  );
}

/** The API's message, plus the invitation (token) problem and any field the form does not show inline. */
function AcceptError({ error }: { error: ApiError }) {
  const details = Object.entries(error.fields)
    .filter(([field]) => field !== 'name' && field !== 'password')
    .flatMap(([, messages]) => messages)
    .filter((m) => m !== error.message);
  return (
    <div className="alert alert--error" role="alert">
      <span>{error.message}</span>
      {details.length > 0 && (
        <ul className="alert__list">
          {details.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * /invitations/accept?token=... — the link in the invitation e-mail. Public: signed out it creates the
 * account (name, password) and signs in; signed in it joins with the current account.
 */
export function InvitationAcceptPage() {
  const { status, me, error: authError, reload, acceptInvitation, logout } = useAuth();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';

  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  if (status === 'loading') {
    return (
      <Card>
        <Spinner />
      </Card>
    );
  }

  if (!token) {
    return (
      <Card>
        <h1 className="login__title">{t('accept.incompleteTitle')}</h1>
        <div className="alert alert--error" role="alert">
          {t('accept.incompleteBody')}
        </div>
        <Link to="/login">{t('auth.goToSignIn')}</Link>
      </Card>
    );
  }

  const signedIn = status === 'authenticated' && me !== null;
  const here = `${location.pathname}${location.search}`;
  const needsSignIn = error !== null && isNotAuthenticated(error);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitting(true);
    setError(null);
    try {
      // A new account starts in the language this page is shown in.
      await acceptInvitation(
        signedIn ? { token } : { token, name: name.trim(), password, language: languageToServer(currentLanguage()) },
      );
      navigate('/', { replace: true });
    } catch (err) {
      setError(toApiError(err));
      setSubmitting(false);
    }
  };

  const onSignOut = async () => {
    setError(null);
    try {
      await logout();
    } catch {
      // Signed out locally either way; the form for a new account shows.
    }
  };

  return (
    <Card>
      <h1 className="login__title">{t('accept.title')}</h1>
      <p className="login__subtitle">
        {signedIn ? (
          <Trans
            i18nKey="accept.signedInAs"
            values={{ email: me.email }}
            components={{ email: <strong data-testid="accept-email" /> }}
          />
        ) : (
          t('accept.choosePassword')
        )}
      </p>
      {status === 'error' && <ErrorBanner error={authError} onRetry={reload} />}
      {error &&
        (needsSignIn ? (
          <div className="alert alert--warning" role="alert" data-testid="accept-sign-in">
            <span>{error.message}</span>
            <Link to={`/login?next=${encodeURIComponent(here)}`}>{t('accept.signInToAccept')}</Link>
          </div>
        ) : (
          <AcceptError error={error} />
        ))}
      <form onSubmit={(e) => void onSubmit(e)} noValidate aria-label={t('accept.submit')}>
        {!signedIn && (
          <>
            <FormField id="name" label={t('accept.name')} error={error?.field('name')}>
              {(control) => (
                <input
                  {...control}
                  name="name"
                  autoComplete="name"
                  maxLength={150}
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                />
              )}
            </FormField>
            <FormField id="password" label={t('auth.password')} error={error?.field('password')}>
              {(control) => (
                <input
                  {...control}
                  name="password"
                  type="password"
                  autoComplete="new-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              )}
            </FormField>
          </>
        )}
        <button type="submit" className="btn btn--primary btn--block" disabled={submitting}>
          {submitting ? t('accept.submitting') : t('accept.submit')}
        </button>
      </form>
      <p className="muted login__footer">
        {signedIn ? (
          <Trans
            i18nKey="accept.notYou"
            components={{ signout: <button type="button" className="btn-link" onClick={() => void onSignOut()} /> }}
          />
        ) : (
          <Trans i18nKey="accept.haveAccount" components={{ signin: <Link to={`/login?next=${encodeURIComponent(here)}`} /> }} />
        )}
      </p>
    </Card>
  );
}

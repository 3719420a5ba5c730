import { useTranslation } from 'react-i18next';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useAuth } from '../../auth/AuthContext';
import { AuthCard } from '../../components/AuthCard';
import { Spinner } from '../../components/ui';
import { toApiError } from '../../hooks';

/** Where a new account goes once its address is confirmed: connecting its first cloud account. */
export const FIRST_RUN_PATH = '/connect';

/** /verify-email?token=... — the link of the sign-up e-mail: confirms the address, signs in, moves on. */
export function VerifyEmailPage() {
  const { verifyEmail } = useAuth();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const [error, setError] = useState<string | null>(null);
  // The link is one-time: React's development double effect must not spend it twice.
  const sent = useRef(false);

  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    verifyEmail(token)
      .then(() => navigate(FIRST_RUN_PATH, { replace: true }))
      .catch((err: unknown) => {
        const apiErr = toApiError(err);
        setError(apiErr.field('token') ?? apiErr.message);
      });
  }, [token, verifyEmail, navigate]);

  if (!token) {
    return (
      <AuthCard>
        <h1 className="login__title">{t('verify.incompleteTitle')}</h1>
        <div className="alert alert--error" role="alert">
          {t('verify.incompleteBody')}
        </div>
        <Link to="/login">{t('auth.goToSignIn')}</Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard>
      <h1 className="login__title">{t('verify.title')}</h1>
      {error ? (
        <>
          <div className="alert alert--error" role="alert" data-testid="verify-error">
            {error}
          </div>
          <Link to="/login">{t('auth.goToSignIn')}</Link>
        </>
      ) : (
        <Spinner label={t('verify.confirming')} />
      )}
    </AuthCard>
  );
}

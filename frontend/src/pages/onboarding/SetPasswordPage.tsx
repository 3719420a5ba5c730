import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useAuth } from '../../auth/AuthContext';
import { ApiError } from '../../api/client';
import { AuthCard } from '../../components/AuthCard';
import { FormField } from '../../components/FormField';
import { FormErrorBanner } from '../../components/ui';
import { toApiError } from '../../hooks';
import { FIRST_RUN_PATH } from './VerifyEmailPage';

/** /set-password?uid=...&token=... — the one-time link `manage.py create_organization` prints. */
export function SetPasswordPage() {
  const { setPassword } = useAuth();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const uid = params.get('uid')?.trim() ?? '';
  const token = params.get('token')?.trim() ?? '';
  const [password, setPasswordValue] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  if (!uid || !token) {
    return (
      <AuthCard>
        <h1 className="login__title">{t('setPassword.incompleteTitle')}</h1>
        <div className="alert alert--error" role="alert">
          {t('setPassword.incompleteBody')}
        </div>
        <Link to="/login">{t('auth.goToSignIn')}</Link>
      </AuthCard>
    );
  }

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitting(true);
    setError(null);
    try {
      await setPassword({ uid, token, password });
      navigate(FIRST_RUN_PATH, { replace: true });
    } catch (err) {
      setError(toApiError(err));
      setSubmitting(false);
    }
  };

  return (
    <AuthCard>
      <h1 className="login__title">{t('setPassword.title')}</h1>
      <FormErrorBanner error={error} inlineFields={['password']} />
      <form onSubmit={(e) => void onSubmit(e)} noValidate aria-label={t('setPassword.form')}>
        <FormField
          id="new-password"
          label={t('setPassword.newPassword')}
          hint={t('auth.passwordHint')}
          error={error?.field('password')}
        >
          {(control) => (
            <input
              {...control}
              type="password"
              autoComplete="new-password"
              required
              autoFocus
              value={password}
              onChange={(e) => setPasswordValue(e.target.value)}
            />
          )}
        </FormField>
        <button type="submit" className="btn btn--primary btn--block" disabled={submitting}>
          {submitting ? t('common.saving') : t('setPassword.submit')}
        </button>
      </form>
    </AuthCard>
  );
}

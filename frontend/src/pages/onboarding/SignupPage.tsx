import { useState, type FormEvent } from 'react';
import { Link, Navigate } from 'react-router';
import { useAuth } from '../../auth/AuthContext';
import { ApiError } from '../../api/client';
import { authApi } from '../../api/endpoints';
import type { Currency, SignupCreated } from '../../api/types';
import { AuthCard } from '../../components/AuthCard';
import { FormField } from '../../components/FormField';
import { FormErrorBanner } from '../../components/ui';
import { CURRENCY_LABELS } from '../../format';
import { toApiError } from '../../hooks';

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
      <h1 className="login__title">Check your inbox</h1>
      <div className="alert alert--success" role="status">
        {sent.message}
      </div>
      <p className="muted">
        Until you open the link, signing in is not possible. Nothing arrived after a few minutes? Look in the spam
        folder, or send it again.
      </p>
      {notice && <p role="status">{notice}</p>}
      {error && (
        <div className="alert alert--error" role="alert">
          {error}
        </div>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={() => void resend()} disabled={resending}>
          {resending ? 'Sending…' : 'Send the link again'}
        </button>
        <Link to="/login">Go to sign in</Link>
      </div>
    </div>
  );
}

/** /signup — create an account and its organization; the e-mailed link confirms the address. */
export function SignupPage() {
  const { status } = useAuth();
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
        timezone: timezone.trim(),
        currency,
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
      <h1 className="login__title">Create your account</h1>
      <p className="login__subtitle">
        Sign up, confirm your e-mail address, then connect a Tencent Cloud account: the first numbers appear while
        its history is read.
      </p>
      <FormErrorBanner error={error} inlineFields={FIELDS} />
      <form onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Sign up">
        <FormField id="signup-name" label="Your name" error={fieldError('name')}>
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
        <FormField id="signup-email" label="Work e-mail" error={fieldError('email')}>
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
          label="Password"
          hint="At least 8 characters; not a common password, not only digits, not like your e-mail address."
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
        <FormField id="signup-organization" label="Organization name" error={fieldError('organization_name')}>
          {(control) => (
            <input
              {...control}
              name="organization_name"
              autoComplete="organization"
              maxLength={100}
              required
              placeholder="e.g. Vision Research Lab"
              value={organizationName}
              onChange={(e) => setOrganizationName(e.target.value)}
            />
          )}
        </FormField>
        <div className="form-grid">
          <FormField
            id="signup-timezone"
            label="Timezone"
            hint="Days and months of your reports are counted in it."
            error={fieldError('timezone')}
          >
            {(control) => (
              <input {...control} name="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)} />
            )}
          </FormField>
          <FormField id="signup-currency" label="Currency" error={fieldError('currency')}>
            {(control) => (
              <select {...control} value={currency} onChange={(e) => setCurrency(e.target.value as Currency)}>
                <option value="CNY">{CURRENCY_LABELS.CNY}</option>
                <option value="USD">{CURRENCY_LABELS.USD}</option>
              </select>
            )}
          </FormField>
        </div>
        <button type="submit" className="btn btn--primary btn--block" disabled={submitting}>
          {submitting ? 'Creating your account…' : 'Create account'}
        </button>
      </form>
      <p className="muted">
        Already have an account? <Link to="/login">Sign in</Link>
      </p>
    </AuthCard>
  );
}

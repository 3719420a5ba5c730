import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useAuth } from '../auth/AuthContext';
import { ApiError, isNotAuthenticated } from '../api/client';
import { ErrorBanner, Spinner } from '../components/ui';
import { FormField } from '../components/FormField';
import { toApiError } from '../hooks';

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
        <Spinner label="Loading…" />
      </Card>
    );
  }

  if (!token) {
    return (
      <Card>
        <h1 className="login__title">Invitation link incomplete</h1>
        <div className="alert alert--error" role="alert">
          This link has no invitation token. Open the link from the invitation e-mail again, or ask the person who
          invited you to send a new invitation.
        </div>
        <Link to="/login">Go to sign in</Link>
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
      await acceptInvitation(signedIn ? { token } : { token, name: name.trim(), password });
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
      <h1 className="login__title">Join your team on GPU Ledger</h1>
      <p className="login__subtitle">
        {signedIn ? (
          <>
            You are signed in as <strong data-testid="accept-email">{me.email}</strong>. Accept to join the
            organization that invited you.
          </>
        ) : (
          'Choose a password to create your account. The invitation fixes your e-mail address.'
        )}
      </p>
      {status === 'error' && <ErrorBanner error={authError} onRetry={reload} />}
      {error &&
        (needsSignIn ? (
          <div className="alert alert--warning" role="alert" data-testid="accept-sign-in">
            <span>{error.message}</span>
            <Link to={`/login?next=${encodeURIComponent(here)}`}>Sign in to accept</Link>
          </div>
        ) : (
          <AcceptError error={error} />
        ))}
      <form onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Accept invitation">
        {!signedIn && (
          <>
            <FormField id="name" label="Your name (optional)" error={error?.field('name')}>
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
            <FormField id="password" label="Password" error={error?.field('password')}>
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
          {submitting ? 'Accepting…' : 'Accept invitation'}
        </button>
      </form>
      <p className="muted login__footer">
        {signedIn ? (
          <>
            Not you?{' '}
            <button type="button" className="btn-link" onClick={() => void onSignOut()}>
              Sign out
            </button>{' '}
            to accept as someone else.
          </>
        ) : (
          <>
            Already have an account? <Link to={`/login?next=${encodeURIComponent(here)}`}>Sign in</Link> first.
          </>
        )}
      </p>
    </Card>
  );
}

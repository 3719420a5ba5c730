import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useAuth } from '../auth/AuthContext';
import { ApiError } from '../api/client';
import { FormField } from '../components/FormField';
import { safeRedirect } from '../redirect';

export function LoginPage() {
  const { status, login } = useAuth();
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
      setError(new ApiError(0, 'required', 'Enter your e-mail and password.'));
      return;
    }
    setSubmitting(true);
    setError(null);
    try {
      await login(email.trim(), password);
      navigate(from, { replace: true });
    } catch (err) {
      setError(
        err instanceof ApiError ? err : new ApiError(0, 'unknown', 'Something went wrong. Please try again.'),
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
        <h1 className="login__title">Sign in</h1>
        <p className="login__subtitle">See where your Tencent Cloud GPU spend goes, and how to spend less of it.</p>
        {error && (
          <div className={`alert ${error.code === 'locked_out' ? 'alert--warning' : 'alert--error'}`} role="alert">
            {error.message}
          </div>
        )}
        <form onSubmit={(e) => void onSubmit(e)} noValidate>
          <FormField id="email" label="E-mail" error={error?.field('email')}>
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
          <FormField id="password" label="Password" error={error?.field('password')}>
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
            {submitting ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </div>
    </div>
  );
}

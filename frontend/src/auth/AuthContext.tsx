import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, isNotAuthenticated, setUnauthenticatedHandler } from '../api/client';
import { authApi, invitationsApi } from '../api/endpoints';
import type { InvitationAcceptInput, Me, SetPasswordInput } from '../api/types';

type Status = 'loading' | 'authenticated' | 'anonymous' | 'error';

export interface AuthState {
  status: Status;
  me: Me | null;
  error: ApiError | null;
  login: (email: string, password: string) => Promise<Me>;
  logout: () => Promise<void>;
  switchOrganization: (slug: string) => Promise<Me>;
  /** Accept an invitation; signed out, this creates the account and signs in. */
  acceptInvitation: (input: InvitationAcceptInput) => Promise<Me>;
  /** Open the sign-up confirmation link: confirms the address and signs in. */
  verifyEmail: (token: string) => Promise<Me>;
  /** Choose a password through a one-time link (create_organization) and sign in. */
  setPassword: (input: SetPasswordInput) => Promise<Me>;
  reload: () => void;
  /** Called when any API call reports that the session is gone. */
  markSignedOut: () => void;
}

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Status>('loading');
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setStatus('loading');
    authApi
      .me(controller.signal)
      .then((payload) => {
        setMe(payload);
        setError(null);
        setStatus('authenticated');
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setMe(null);
        if (isNotAuthenticated(err) || (err instanceof ApiError && (err.status === 401 || err.status === 403))) {
          setStatus('anonymous');
          return;
        }
        setError(err instanceof ApiError ? err : new ApiError(0, 'unknown', String(err)));
        setStatus('error');
      });
    return () => controller.abort();
  }, [attempt]);

  const markSignedOut = useCallback(() => {
    setMe(null);
    setStatus('anonymous');
  }, []);

  useEffect(() => {
    setUnauthenticatedHandler(markSignedOut);
    return () => setUnauthenticatedHandler(null);
  }, [markSignedOut]);

  const login = useCallback(async (email: string, password: string) => {
    const payload = await authApi.login(email, password);
    setMe(payload);
    setError(null);
    setStatus('authenticated');
    return payload;
  }, []);

  const logout = useCallback(async () => {
    try {
      await authApi.logout();
    } finally {
      setMe(null);
      setStatus('anonymous');
    }
  }, []);

  const switchOrganization = useCallback(async (slug: string) => {
    const payload = await authApi.switchOrganization(slug);
    setMe(payload);
    return payload;
  }, []);

  const acceptInvitation = useCallback(async (input: InvitationAcceptInput) => {
    const payload = await invitationsApi.accept(input);
    setMe(payload);
    setError(null);
    setStatus('authenticated');
    return payload;
  }, []);

  const verifyEmail = useCallback(async (token: string) => {
    const payload = await authApi.verifyEmail(token);
    setMe(payload);
    setError(null);
    setStatus('authenticated');
    return payload;
  }, []);

  const setPassword = useCallback(async (input: SetPasswordInput) => {
    const payload = await authApi.setPassword(input);
    setMe(payload);
    setError(null);
    setStatus('authenticated');
    return payload;
  }, []);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);

  const value = useMemo<AuthState>(
    () => ({
      status,
      me,
      error,
      login,
      logout,
      switchOrganization,
      acceptInvitation,
      verifyEmail,
      setPassword,
      reload,
      markSignedOut,
    }),
    [status, me, error, login, logout, switchOrganization, acceptInvitation, verifyEmail, setPassword, reload, markSignedOut],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth must be used inside <AuthProvider>');
  return ctx;
}

/** The signed-in user; only for components rendered inside the authenticated shell. */
export function useMe(): Me {
  const { me } = useAuth();
  if (!me) throw new Error('useMe used without a signed-in user');
  return me;
}

import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ApiError, isNotAuthenticated, latestRequestSeq, setUnauthenticatedHandler } from '../api/client';
import { authApi, invitationsApi } from '../api/endpoints';
import type { InvitationAcceptInput, Me, SetPasswordInput } from '../api/types';
import { i18n, languageFromServer, languageToServer, type UiLanguage } from '../i18n';

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
  /** Stores the signed-in person's language on the server (the UI has already switched). */
  setLanguage: (language: UiLanguage) => Promise<Me>;
  reload: () => void;
  /** Called when any API call reports that the session is gone (with that request's number). */
  markSignedOut: (requestSeq?: number) => void;
}

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Status>('loading');
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  // The last request sent before the latest sign-in finished: answers to requests up to it were
  // sent without the new session, so a 401 among them says nothing about it.
  const signedInAfterSeq = useRef(0);
  // Cached answers belong to one user in one organization: they are dropped when either changes.
  const queryClient = useQueryClient();
  const forgetAnswers = useCallback(() => queryClient.clear(), [queryClient]);
  const signedIn = useCallback((payload: Me) => {
    forgetAnswers();
    signedInAfterSeq.current = latestRequestSeq();
    setMe(payload);
    setError(null);
    setStatus('authenticated');
    return payload;
  }, [forgetAnswers]);

  useEffect(() => {
    const controller = new AbortController();
    const sentAfter = latestRequestSeq();
    // A sign-in that finishes while /me is on its way wins over /me's (older) answer.
    const superseded = () => signedInAfterSeq.current > sentAfter;
    setStatus('loading');
    authApi
      .me(controller.signal)
      .then((payload) => {
        if (superseded()) return;
        setMe(payload);
        setError(null);
        setStatus('authenticated');
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted || superseded()) return;
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

  const markSignedOut = useCallback((requestSeq?: number) => {
    if (requestSeq !== undefined && requestSeq <= signedInAfterSeq.current) return;
    forgetAnswers();
    setMe(null);
    setStatus('anonymous');
  }, [forgetAnswers]);

  useEffect(() => {
    setUnauthenticatedHandler(markSignedOut);
    return () => setUnauthenticatedHandler(null);
  }, [markSignedOut]);

  const login = useCallback(async (email: string, password: string) => {
    const payload = await authApi.login(email, password);
    return signedIn(payload);
  }, [signedIn]);

  const logout = useCallback(async () => {
    try {
      await authApi.logout();
    } finally {
      forgetAnswers();
      setMe(null);
      setStatus('anonymous');
    }
  }, [forgetAnswers]);

  const switchOrganization = useCallback(async (slug: string) => {
    const payload = await authApi.switchOrganization(slug);
    forgetAnswers();
    setMe(payload);
    return payload;
  }, [forgetAnswers]);

  const acceptInvitation = useCallback(async (input: InvitationAcceptInput) => {
    const payload = await invitationsApi.accept(input);
    return signedIn(payload);
  }, [signedIn]);

  const verifyEmail = useCallback(async (token: string) => {
    const payload = await authApi.verifyEmail(token);
    return signedIn(payload);
  }, [signedIn]);

  const setPassword = useCallback(async (input: SetPasswordInput) => {
    const payload = await authApi.setPassword(input);
    return signedIn(payload);
  }, [signedIn]);

  const setLanguage = useCallback(async (language: UiLanguage) => {
    const payload = await authApi.updateMe({ language: languageToServer(language) });
    setMe(payload);
    return payload;
  }, []);

  // Signed in, the language stored for the person wins over the browser's.
  const storedLanguage = me?.language;
  useEffect(() => {
    if (storedLanguage) void i18n.changeLanguage(languageFromServer(storedLanguage));
  }, [storedLanguage]);

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
      setLanguage,
      reload,
      markSignedOut,
    }),
    [status, me, error, login, logout, switchOrganization, acceptInvitation, verifyEmail, setPassword, setLanguage, reload, markSignedOut],
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

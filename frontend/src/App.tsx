import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { AuthProvider, useAuth } from './auth/AuthContext';
import { AppShell } from './components/AppShell';
import { createQueryClient } from './data/queryClient';
import { i18n } from './i18n';
import { ErrorBanner, Spinner } from './components/ui';
import { InstanceDetailPage } from './pages/InstanceDetailPage';
import { InstancesPage } from './pages/InstancesPage';
import { InvitationAcceptPage } from './pages/InvitationAcceptPage';
import { LoginPage } from './pages/LoginPage';
import { OverviewPage } from './pages/OverviewPage';
import { ProjectPage } from './pages/overview/ProjectPage';
import { ConnectPage } from './pages/onboarding/ConnectPage';
import { SetPasswordPage } from './pages/onboarding/SetPasswordPage';
import { SignupPage } from './pages/onboarding/SignupPage';
import { VerifyEmailPage } from './pages/onboarding/VerifyEmailPage';
import { NotFoundPage } from './pages/PlaceholderPages';
import { RecommendationDetailPage } from './pages/recommendations/RecommendationDetailPage';
import { RecommendationsPage } from './pages/recommendations/RecommendationsPage';
import { ReportsPage } from './pages/reports/ReportsPage';
import { ProjectsPage } from './pages/ProjectsPage';
import { SettingsPage } from './pages/settings/SettingsPage';

function FullPage({ children }: { children: ReactNode }) {
  return <div className="fullpage">{children}</div>;
}

/** Routes below it need a session; without one the user is sent to /login and brought back after. */
function RequireAuth({ children }: { children: ReactNode }) {
  const { status, error, reload } = useAuth();
  const { t } = useTranslation();
  const location = useLocation();
  if (status === 'loading') {
    return (
      <FullPage>
        <Spinner label={t('app.loading')} />
      </FullPage>
    );
  }
  if (status === 'error') {
    return (
      <FullPage>
        <ErrorBanner error={error} onRetry={reload} />
      </FullPage>
    );
  }
  if (status === 'anonymous') {
    const from = `${location.pathname}${location.search}${location.hash}`;
    return <Navigate to="/login" replace state={{ from }} />;
  }
  return <>{children}</>;
}

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      {/* Public: the link in the invitation e-mail, opened signed out or signed in. */}
      <Route path="/invitations/accept" element={<InvitationAcceptPage />} />
      {/* Public: self-service sign-up, its e-mailed confirmation link, an operator's set-password link. */}
      <Route path="/signup" element={<SignupPage />} />
      <Route path="/verify-email" element={<VerifyEmailPage />} />
      <Route path="/set-password" element={<SetPasswordPage />} />
      <Route
        element={
          <RequireAuth>
            <AppShell />
          </RequireAuth>
        }
      >
        <Route index element={<OverviewPage />} />
        <Route path="connect" element={<ConnectPage />} />
        <Route path="projects" element={<ProjectsPage />} />
        <Route path="projects/:slug" element={<ProjectPage />} />
        <Route path="instances" element={<InstancesPage />} />
        <Route path="instances/:id" element={<InstanceDetailPage />} />
        <Route path="recommendations" element={<RecommendationsPage />} />
        <Route path="recommendations/:id" element={<RecommendationDetailPage />} />
        <Route path="reports" element={<ReportsPage />} />
        <Route path="settings/*" element={<SettingsPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

/** The browser's cache of server answers; tests pass their own (retries off, nothing shared between tests). */
const defaultQueryClient = createQueryClient();

export function App({ queryClient = defaultQueryClient }: { queryClient?: QueryClient }) {
  // The answers hold words the API rendered in the language of the request: ask again in the new one.
  useEffect(() => {
    const refetch = () => void queryClient.invalidateQueries();
    i18n.on('languageChanged', refetch);
    return () => i18n.off('languageChanged', refetch);
  }, [queryClient]);
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <AuthProvider>
          <AppRoutes />
        </AuthProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}

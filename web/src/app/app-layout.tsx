import { Component, Suspense, type ReactNode } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { CenteredCardPage } from '@/components/ui/page-shell';
import { Spinner } from '@/components/ui/spinner';
import { SandboxBanner } from '@/features/config/components/sandbox-banner';

/** Every page: the sandbox banner on top, then the route. Lazy routes suspend here. */
export function AppLayout() {
  const { pathname } = useLocation();
  return (
    <div className="flex min-h-dvh flex-col">
      <SandboxBanner />
      <RouteErrorBoundary key={pathname}>
        <Suspense fallback={<RouteFallback />}>
          <Outlet />
        </Suspense>
      </RouteErrorBoundary>
    </div>
  );
}

function RouteFallback() {
  return (
    <div className="flex flex-1 items-center justify-center p-10 text-3xl text-muted">
      <Spinner />
    </div>
  );
}

/** A lazy page whose chunk failed to load (offline, or a new deploy replaced it), or a render crash. */
class RouteErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <CenteredCardPage
        title="Something went wrong"
        description="This page could not be loaded. Check your connection and reload the page."
        footer={
          <Button size="lg" fullWidth onClick={() => window.location.reload()}>
            Reload
          </Button>
        }
      />
    );
  }
}

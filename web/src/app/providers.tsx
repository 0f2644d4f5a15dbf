import type { ReactNode } from 'react';
import { SWRConfig, type SWRConfiguration } from 'swr';
import { ToastProvider } from '@/components/ui/toast';
import { swrConfig } from '@/lib/api';

export interface AppProvidersProps {
  children: ReactNode;
  /** Tests pass `{ provider: () => new Map() }` (a fresh cache) or a fetcher override. */
  swr?: SWRConfiguration;
}

export function AppProviders({ children, swr }: AppProvidersProps) {
  return (
    <SWRConfig value={{ ...swrConfig, ...swr }}>
      <ToastProvider>{children}</ToastProvider>
    </SWRConfig>
  );
}

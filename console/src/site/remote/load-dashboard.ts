/**
 * Loads the dashboard bundle (module federation remote 'dashboard') once, on first
 * use. A load that fails or takes longer than DASHBOARD_LOAD_TIMEOUT_MS is reported as
 * failed and tried again on the next use.
 */
import { useEffect, useState } from 'react';

export type DashboardModule = typeof import('../../dashboard/remote.ts');

export const DASHBOARD_LOAD_TIMEOUT_MS = 20_000;

let loaded: DashboardModule | null = null;
let loading: Promise<DashboardModule> | null = null;

function importWithTimeout(): Promise<DashboardModule> {
  return new Promise<DashboardModule>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('The dashboard took too long to load')), DASHBOARD_LOAD_TIMEOUT_MS);
    (import('dashboard/screens') as Promise<DashboardModule>).then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export function loadDashboard(): Promise<DashboardModule> {
  loading ??= importWithTimeout().then(
    (module) => {
      loaded = module;
      return module;
    },
    (error: unknown) => {
      loading = null;
      console.error('The dashboard bundle could not be loaded', error);
      throw error;
    },
  );
  return loading;
}

export type DashboardLoad = { status: 'loading' } | { status: 'failed' } | { status: 'ready'; module: DashboardModule };

/** The dashboard bundle's load state, starting the load if needed. */
export function useDashboard(): DashboardLoad {
  const [state, setState] = useState<DashboardLoad>(() => (loaded ? { status: 'ready', module: loaded } : { status: 'loading' }));
  useEffect(() => {
    if (state.status !== 'loading') return;
    let current = true;
    loadDashboard().then(
      (module) => current && setState({ status: 'ready', module }),
      () => current && setState({ status: 'failed' }),
    );
    return () => {
      current = false;
    };
  }, [state.status]);
  return state;
}

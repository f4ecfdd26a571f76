/**
 * Plan selection state (spec §3): the plan chosen, whether the plan-required modal
 * shows (and the server's words for why), and a plan selection error. Any screen opens
 * the modal when an action needs a plan the team lacks; a failed mutation answering
 * 402 `plan_limit` opens it by itself (watchPlanLimits, mounted by the dashboard's shell).
 * Choosing a plan stores it and clears the error (spec §4).
 */
import type { QueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { ApiError } from '../../api/client.ts';

export interface PlanSelection {
  selectedPlanId: string | null;
  modalOpen: boolean;
  /** Why a plan is needed, as the server said it. */
  reason: string | null;
  error: string | null;
}

let state: PlanSelection = { selectedPlanId: null, modalOpen: false, reason: null, error: null };
const listeners = new Set<() => void>();

function update(change: Partial<PlanSelection>) {
  state = { ...state, ...change };
  for (const listener of listeners) listener();
}

export const openPlanRequired = (reason: string | null = null) => update({ modalOpen: true, reason, error: null });
/** Closing the modal drops the choice made in it. */
export const closePlanRequired = () => update({ selectedPlanId: null, modalOpen: false, reason: null, error: null });
export const choosePlan = (planId: string) => update({ selectedPlanId: planId, error: null });
export const setPlanSelectionError = (error: string) => update({ error });

export function usePlanSelection(): PlanSelection {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}

/** The server's answer when an action needs a plan the team lacks: 402 with code `plan_limit`. */
export function isPlanRequired(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 402 && (error.body as { code?: unknown } | undefined)?.code === 'plan_limit';
}

/** Opens the plan-required modal whenever a mutation fails for want of a plan; returns the unsubscribe. */
export function watchPlanLimits(queryClient: QueryClient): () => void {
  return queryClient.getMutationCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'error' && isPlanRequired(event.action.error)) openPlanRequired(event.action.error.message);
  });
}

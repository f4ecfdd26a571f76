// What the 502 screen says when a dashboard screen cannot be loaded (spec §8).
import type { DashboardScreenName } from '../../shared/dashboard-screens.ts';

export const REMOTE_FAILURE_STATUS = 502;

export const REMOTE_FAILURE_MESSAGES: Record<DashboardScreenName, string> = {
  login: 'Unable to load the login screen. Please try again.',
  register: 'Registration page failed to load. Refresh to retry.',
  updatePassword: 'Could not load the password update page.',
  verify: 'Verification page failed to load.',
  forgotPassword: "We're having trouble loading the password reset page.",
  overview: 'Dashboard failed to load. Please check your connection.',
  aiConnections: "AI Connections couldn't be loaded at the moment.",
  syntheticGroups: 'Failed to load the synthetic groups interface.',
  settings: 'Settings page is currently unavailable.',
  account: 'Unable to load account settings.',
  subscription: 'Subscription settings failed to load.',
  billingSuccess: 'Billing success page failed to load.',
  billingCancel: 'Billing cancel page failed to load.',
  addGroup: 'Error loading group creation page.',
  acceptInvite: 'The invitation page failed to load. Please try again later.',
};

// The dashboard bundle's exposed module ('dashboard/screens'): the component of every
// screen of the table (screens.ts), by name, and the shell around the private ones.
import type { ComponentType } from 'react';
import { AccountScreen } from './account/AccountScreen.tsx';
import { AdvisorScreen } from './advisor/AdvisorScreen.tsx';
import { AlertsScreen } from './alerts/AlertsScreen.tsx';
import { AcceptInviteScreen } from './auth/AcceptInviteScreen.tsx';
import { ForgotPasswordScreen } from './auth/ForgotPasswordScreen.tsx';
import { LoginScreen } from './auth/LoginScreen.tsx';
import { RegisterScreen } from './auth/RegisterScreen.tsx';
import { SsoCallbackScreen } from './auth/SsoCallbackScreen.tsx';
import { UpdatePasswordScreen } from './auth/UpdatePasswordScreen.tsx';
import { VerifyScreen } from './auth/VerifyScreen.tsx';
import { BillingCancelScreen } from './billing/BillingCancelScreen.tsx';
import { BillingSuccessScreen } from './billing/BillingSuccessScreen.tsx';
import { SubscriptionScreen } from './billing/SubscriptionScreen.tsx';
import { AiConnectionsScreen } from './connections/AiConnectionsScreen.tsx';
import { AddGroupScreen } from './groups/AddGroupScreen.tsx';
import { AuditScreen } from './audit/AuditScreen.tsx';
import { GpuScreen } from './gpu/GpuScreen.tsx';
import { SyntheticGroupsScreen } from './groups/SyntheticGroupsScreen.tsx';
import { OverviewScreen } from './overview/OverviewScreen.tsx';
import type { DashboardScreenName } from './screens.ts';
import { RequestDetailScreen } from './requests/RequestDetailScreen.tsx';
import { SettingsScreen } from './settings/SettingsScreen.tsx';
import { TeamScreen } from './team/TeamScreen.tsx';
import '../styles/dashboard.css';

export { DashboardShell } from './shell/DashboardShell.tsx';

export const screens: Record<DashboardScreenName, ComponentType> = {
  login: LoginScreen,
  register: RegisterScreen,
  updatePassword: UpdatePasswordScreen,
  verify: VerifyScreen,
  forgotPassword: ForgotPasswordScreen,
  acceptInvite: AcceptInviteScreen,
  ssoCallback: SsoCallbackScreen,
  overview: OverviewScreen,
  aiConnections: AiConnectionsScreen,
  syntheticGroups: SyntheticGroupsScreen,
  settings: SettingsScreen,
  account: AccountScreen,
  team: TeamScreen,
  subscription: SubscriptionScreen,
  billingSuccess: BillingSuccessScreen,
  billingCancel: BillingCancelScreen,
  addGroup: AddGroupScreen,
  requestDetail: RequestDetailScreen,
  advisor: AdvisorScreen,
  alerts: AlertsScreen,
  gpu: GpuScreen,
  auditLog: AuditScreen,
};

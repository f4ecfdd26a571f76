// The screens the dashboard bundle exposes to the site, by name. The site maps each
// route to one of these; the dashboard's `screens` object must provide every one.
export type DashboardScreenName =
  | 'login'
  | 'register'
  | 'updatePassword'
  | 'verify'
  | 'forgotPassword'
  | 'acceptInvite'
  | 'overview'
  | 'aiConnections'
  | 'syntheticGroups'
  | 'settings'
  | 'account'
  | 'subscription'
  | 'billingSuccess'
  | 'billingCancel'
  | 'addGroup';

// The dashboard bundle as the site imports it through module federation; its real
// type is taken from the source in load-dashboard.ts.
declare module 'dashboard/screens';

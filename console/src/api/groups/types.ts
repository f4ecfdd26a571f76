// Synthetic groups as the accept-invite call answers them (filled out by the dashboard issue).
export interface SyntheticGroup {
  id: string;
  name: string;
  description?: string | null;
}

// Teams as GET /api/team answers them (spec §3: id, name, description; your role in each).
export interface Team {
  id: string;
  name: string;
  description: string;
  /** The IANA time zone the team's budget windows follow. */
  timeZone: string;
  createdAt: string;
  /** Your role in the team (ADMIN, MEMBER, …); absent where the answer is about the team alone. */
  role?: string;
}

// Teams as /api/team answers them (spec §3: team, member, invite, accept, role change,
// removal) and what its calls take.
import type { TeamRole } from '@spendgate/core';
import type { SessionAnswer } from '../auth/types.ts';

export type { TeamRole };

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

/** A member of a team: `id` is the user's id. */
export interface TeamMember {
  id: string;
  email: string;
  name: string;
  avatar: string | null;
  role: TeamRole;
  joinedAt: string;
}

/** An invitation just sent (POST /team/invite). */
export interface TeamInvitation {
  id: string;
  teamId: string;
  email: string;
  role: TeamRole;
  expiresAt: string;
}

/** Accepting an invitation signs in (or creates) the invited account and answers its session and the team. */
export interface TeamInvitationAccepted extends SessionAnswer {
  team: Team;
}

/** What an invitation's token opens, before it is accepted (POST /team/invitation): for whom, to what, and whether that account exists. */
export interface TeamInvitationPreview {
  teamName: string;
  email: string;
  role: TeamRole;
  expiresAt: string;
  /** Whether an account uses the invited e-mail: it logs in to accept, else it signs up. */
  accountExists: boolean;
}

/** A team's seats (GET /team/{id}/seats): what its plan includes (null: custom), what members and pending invitations take. */
export interface TeamSeats {
  plan: string;
  planSlug: 'free-trial' | 'developers' | 'growth' | 'enterprise';
  /** A trial refuses seats past those included; a paid plan charges them. */
  paying: boolean;
  included: number | null;
  used: number;
  pending: number;
  currency: 'GBP';
  /** Micro-units a month per seat past those included, as an integer string; null when the plan has none. */
  extraSeatMonthlyMicros: string | null;
}

export interface TeamMemberRemoved {
  teamId: string;
  userId: string;
}

export interface NewTeam {
  name: string;
  description: string;
}

export interface TeamInvite {
  teamId: string;
  email: string;
  role: TeamRole;
}

/** The invitation's token, the account's password, and a name when the account is created. */
export interface TeamAccept {
  token: string;
  password: string;
  name?: string;
}

export interface RoleChange {
  teamId: string;
  userId: string;
  role: TeamRole;
}

export interface Removal {
  teamId: string;
  userId: string;
}

/**
 * What the team forms check before they call the API, with the API's own limits (a name
 * of 1 to 200 characters, a description of at most 2,000, an e-mail of at most 254, an
 * invitation token from the e-mailed link). Spec §5 names no product rule for these
 * forms, so the messages are the plain "required / valid / at most" kind. Each function
 * answers the first problem of each field, or an empty object when there is none.
 */
import { TEAM_ROLES, type TeamRole } from '@spendgate/core';

export type Problems<Field extends string> = Partial<Record<Field, string>>;

const NAME_MAX = 200;
const DESCRIPTION_MAX = 2000;
const EMAIL_MAX = 254;
const TOKEN_MIN = 20;
// One @, something on each side, a dot in the domain, no spaces: what a browser's type=email accepts, roughly.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Why `email` cannot be invited, or undefined. */
export function emailProblem(email: string): string | undefined {
  const trimmed = email.trim();
  if (trimmed.length === 0) return 'E-mail is required';
  if (trimmed.length > EMAIL_MAX) return `E-mail must be at most ${EMAIL_MAX} characters`;
  if (!EMAIL.test(trimmed)) return 'Enter a valid e-mail address';
  return undefined;
}

export function validateNewTeam(team: { name: string; description: string }): Problems<'name' | 'description'> {
  const name = team.name.trim();
  return {
    ...(name.length === 0 && { name: 'Team name is required' }),
    ...(name.length > NAME_MAX && { name: `Team name must be at most ${NAME_MAX} characters` }),
    ...(team.description.trim().length > DESCRIPTION_MAX && { description: `Description must be at most ${DESCRIPTION_MAX} characters` }),
  };
}

export function validateInvite(invite: { email: string; role: string }): Problems<'email' | 'role'> {
  const email = emailProblem(invite.email);
  return {
    ...(email && { email }),
    ...(!(TEAM_ROLES as readonly string[]).includes(invite.role) && { role: `Role must be one of ${TEAM_ROLES.join(', ')}` }),
  };
}

export const isTeamRole = (role: string): role is TeamRole => (TEAM_ROLES as readonly string[]).includes(role);

/**
 * The invitation token in what the user pasted: the e-mail's link (…/register?invite=<token>)
 * or the token alone; undefined when there is none.
 *
 * @example invitationToken('https://spendgate.example/register?invite=abc…') // 'abc…'
 */
export function invitationToken(pasted: string): string | undefined {
  const text = pasted.trim();
  const fromLink = /[?&]invite=([^&#\s]+)/.exec(text)?.[1];
  const token = fromLink ? decodeURIComponent(fromLink) : text;
  return token.length >= TOKEN_MIN && /^[\w-]+$/.test(token) ? token : undefined;
}

export function validateJoin(join: { invitation: string; password: string }): Problems<'invitation' | 'password'> {
  return {
    ...(invitationToken(join.invitation) === undefined && { invitation: 'Paste the invitation link from your e-mail' }),
    ...(join.password.length === 0 && { password: 'Password is required' }),
  };
}

export const hasProblems = (problems: object): boolean => Object.keys(problems).length > 0;

/**
 * What the group forms check before they call the API, with the API's own limits (a name
 * of 1 to 200 characters, a description of at most 2,000, an e-mail of at most 254, one
 * of the three group roles). Spec §5 names no product rule for these forms beyond the
 * invitations' (several at once, the first failure reported, which the send mutation
 * does), so the messages are the plain "required / valid / at most" kind. Each function
 * answers the first problem of each field, or an empty object when there is none.
 */
import { isGroupRole } from '../../api/groups/types.ts';

export type Problems<Field extends string> = Partial<Record<Field, string>>;

export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 2000;
const EMAIL_MAX = 254;
/** How many invitations one send may hold: each is its own request. */
export const INVITATIONS_MAX = 20;
// One @, something on each side, a dot in the domain, no spaces: what a browser's type=email accepts, roughly.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function validateGroup(group: { name: string; description: string }): Problems<'name' | 'description'> {
  const name = group.name.trim();
  return {
    ...(name.length === 0 && { name: 'Group name is required' }),
    ...(name.length > NAME_MAX && { name: `Group name must be at most ${NAME_MAX} characters` }),
    ...(group.description.trim().length > DESCRIPTION_MAX && { description: `Description must be at most ${DESCRIPTION_MAX} characters` }),
  };
}

export interface InvitationRow {
  email: string;
  role: string;
}

/**
 * The problems of each row of an invitations form, by index; empty rows are left out of
 * the send and are no problem unless every row is empty. An address twice is one invitation.
 */
export function validateInvitations(rows: InvitationRow[]): { rows: Problems<'email' | 'role'>[]; form?: string } {
  const filled = rows.filter((row) => row.email.trim().length > 0);
  if (filled.length === 0) return { rows: rows.map((_, index) => (index === 0 ? { email: 'E-mail is required' } : {})), form: 'Add at least one e-mail address' };
  if (filled.length > INVITATIONS_MAX) return { rows: rows.map(() => ({})), form: `Send at most ${INVITATIONS_MAX} invitations at once` };
  const seen = new Set<string>();
  return {
    rows: rows.map((row) => {
      const email = row.email.trim().toLowerCase();
      if (email.length === 0) return {};
      const problems: Problems<'email' | 'role'> = {};
      if (email.length > EMAIL_MAX) problems.email = `E-mail must be at most ${EMAIL_MAX} characters`;
      else if (!EMAIL.test(email)) problems.email = 'Enter a valid e-mail address';
      else if (seen.has(email)) problems.email = 'This address is already in the list';
      seen.add(email);
      if (!isGroupRole(row.role)) problems.role = 'Choose Admin, Maintainer or Observer';
      return problems;
    }),
  };
}

export const hasProblems = (problems: Problems<string>) => Object.keys(problems).length > 0;

// What a password must be: 8 to 128 characters, not one of the ~49,000 most common
// passwords (zxcvbn's list), and not the account's own email.
import { dictionary } from '@zxcvbn-ts/language-common';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

const commonPasswords = new Set(dictionary['passwords-common'].map((password) => password.toLowerCase()));

/** Why the password may not be used, or undefined when it may. */
export function passwordProblem(password: string, email?: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (commonPasswords.has(password.toLowerCase())) return 'is too common; choose a less guessable one';
  if (email && password.toLowerCase() === email.toLowerCase()) return 'must not be your email address';
  return undefined;
}

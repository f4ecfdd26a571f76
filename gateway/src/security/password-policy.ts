// What a password must be: 8 to 128 characters, not one of the ~49,000 most common
// passwords (zxcvbn's list), and not the account's own email. The list (~13 MiB in
// memory) is loaded on the first check, not with the gateway: passwords are rarely set.

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

let commonPasswords: Promise<Set<string>> | undefined;

/** Why the password may not be used, or undefined when it may. */
export async function passwordProblem(password: string, email?: string): Promise<string | undefined> {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].map((common) => common.toLowerCase())),
  );
  if ((await commonPasswords).has(password.toLowerCase())) return 'is too common; choose a less guessable one';
  if (email && password.toLowerCase() === email.toLowerCase()) return 'must not be your email address';
  return undefined;
}

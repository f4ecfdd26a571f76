/**
 * What the account forms check before they call the API, with the API's own rules: a
 * name of 1 to 200 characters; an avatar URL as core's avatarProblem allows (https); a
 * new password of 8 to 128 characters that differs from the current one and is typed
 * twice alike. (The API also refuses common passwords and the account's own e-mail.)
 * Spec §5 names no product rule for these forms: the messages are the plain kind.
 */
import { AVATAR_URL_MAX_LENGTH, avatarProblem } from '@spendgate/core';
import type { Problems } from '../team/validation.ts';

export const NAME_MAX = 200;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export function validateName(name: string): Problems<'name'> {
  const trimmed = name.trim();
  if (trimmed.length === 0) return { name: 'Name is required' };
  if (trimmed.length > NAME_MAX) return { name: `Name must be at most ${NAME_MAX} characters` };
  return {};
}

export function validateAvatarUrl(url: string): Problems<'avatarUrl'> {
  const trimmed = url.trim();
  if (trimmed.length === 0) return { avatarUrl: 'Image URL is required' };
  if (trimmed.length > AVATAR_URL_MAX_LENGTH) return { avatarUrl: `Image URL must be at most ${AVATAR_URL_MAX_LENGTH} characters` };
  if (trimmed.startsWith('data:') || avatarProblem(trimmed)) return { avatarUrl: 'Image URL must be an https:// address' };
  return {};
}

export function validatePasswordChange(change: { currentPassword: string; newPassword: string; confirmation: string }): Problems<
  'currentPassword' | 'newPassword' | 'confirmation'
> {
  const problems: Problems<'currentPassword' | 'newPassword' | 'confirmation'> = {};
  if (change.currentPassword.length === 0) problems.currentPassword = 'Current password is required';
  if (change.newPassword.length < PASSWORD_MIN) problems.newPassword = `New password must be at least ${PASSWORD_MIN} characters`;
  else if (change.newPassword.length > PASSWORD_MAX) problems.newPassword = `New password must be at most ${PASSWORD_MAX} characters`;
  else if (change.newPassword === change.currentPassword) problems.newPassword = 'New password must differ from the current one';
  if (change.confirmation !== change.newPassword) problems.confirmation = 'The passwords do not match';
  return problems;
}

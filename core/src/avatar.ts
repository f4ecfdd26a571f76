/**
 * Which avatars an account may show: an https URL (at most 2,048 characters) or an inline
 * PNG, JPEG, GIF or WebP image as a base64 data URL (at most 32 KiB of text). Anything
 * else — `javascript:`, `http:`, `data:text/html`, SVG (which can carry script) — is refused.
 * The API holds every avatar to it; the console checks a URL or a shrunk upload with it first.
 *
 * @example
 *   avatarProblem('https://img.example.com/a.png')  // undefined
 *   avatarProblem('javascript:alert(1)')            // 'must be an https URL or …'
 */
export const AVATAR_URL_MAX_LENGTH = 2048;
export const AVATAR_DATA_URL_MAX_LENGTH = 32_768;

const INLINE_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;
const WHAT = 'must be an https URL or a base64 data URL of a PNG, JPEG, GIF or WebP image';

/** Why `value` cannot be an avatar, or undefined when it can. */
export function avatarProblem(value: string): string | undefined {
  if (value.startsWith('data:')) {
    if (value.length > AVATAR_DATA_URL_MAX_LENGTH) return `must be at most ${AVATAR_DATA_URL_MAX_LENGTH} characters as a data URL`;
    return INLINE_IMAGE.test(value) ? undefined : WHAT;
  }
  if (value.length > AVATAR_URL_MAX_LENGTH) return `must be at most ${AVATAR_URL_MAX_LENGTH} characters`;
  // Printable ASCII only (encode the rest): the URL parser would drop tabs, newlines and
  // surrounding spaces that the stored text would still carry.
  if (!/^[\x21-\x7e]+$/.test(value) || URL.parse(value)?.protocol !== 'https:') return WHAT;
  return undefined;
}

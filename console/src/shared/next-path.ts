/**
 * Where to go after signing in (`?next=` on /login), e.g. back to the invitation link
 * that sent someone there. Only a path of this site is taken: an absolute URL, a
 * protocol-relative `//host` or a backslash (which browsers read as `/`) would let a
 * crafted link send a fresh session to another site.
 *
 * @example internalPath('/groups/accept-invite?token=abc') // '/groups/accept-invite?token=abc'
 * @example internalPath('https://evil.example/')          // undefined
 */
export function internalPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return undefined;
  // Control characters (a tab or line break inside "/\t/host") are dropped by URL parsers, which could make "//host" of it.
  if ([...value].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f)) return undefined;
  return value;
}

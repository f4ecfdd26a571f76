/**
 * A person's avatar: their picture, else the initials of their name (or e-mail). With a
 * `label` it is an image named by it; without one it is decoration beside their name.
 *
 * @example <Avatar name="Ada Lovelace" email="ada@example.com" avatar={null} /> // "AL"
 */
export function initialsOf(name: string, email: string): string {
  const words = (name.trim() || email).split(/\s+/).filter(Boolean);
  return words
    .slice(0, 2)
    .map((word) => word[0]!.toUpperCase())
    .join('');
}

export function Avatar({ name, email, avatar, large = false, label }: { name: string; email: string; avatar: string | null; large?: boolean; label?: string }) {
  const size = large ? 72 : 36;
  const className = `avatar${large ? ' avatar--large' : ''}`;
  if (avatar) return <img className={className} src={avatar} alt={label ?? ''} width={size} height={size} />;
  return (
    <span className={`${className} avatar--initials`} {...(label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': true })}>
      {initialsOf(name, email)}
    </span>
  );
}

// Your role in a group, as a small label (spec §6 names: Admin, Maintainer, Observer).
import { GROUP_ROLE_LABELS, isGroupRole } from '../../api/groups/types.ts';

export const roleLabel = (role: string | null) => (isGroupRole(role) ? GROUP_ROLE_LABELS[role] : 'No role');

export function RoleBadge({ role, prefix = 'Your role: ' }: { role: string | null; prefix?: string }) {
  return <span className={`group-role group-role--${(role ?? 'none').toLowerCase()}`}>{`${prefix}${roleLabel(role)}`}</span>;
}

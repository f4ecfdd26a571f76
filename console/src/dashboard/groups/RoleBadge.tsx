// Your role in a group, as a small label (spec §6 names: Admin, Maintainer, Observer).
import { GROUP_ROLE_LABELS, isGroupRole } from '../../api/groups/types.ts';
import { Badge } from '../ui/Badge.tsx';

export const roleLabel = (role: string | null) => (isGroupRole(role) ? GROUP_ROLE_LABELS[role] : 'No role');

export function RoleBadge({ role, prefix = 'Your role: ' }: { role: string | null; prefix?: string }) {
  // Admins and maintainers change the group: their role in its brand colour; an observer's (or none) plain.
  const changes = role === 'ADMIN' || role === 'MAINTAINER';
  return <Badge tone={changes ? 'brand' : 'neutral'}>{`${prefix}${roleLabel(role)}`}</Badge>;
}

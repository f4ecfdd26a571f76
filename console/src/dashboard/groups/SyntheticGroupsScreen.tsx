/**
 * /dashboard/synthetic-groups: the groups spend is attributed to. Without `?group=` it
 * lists the groups you can see (filtered by `?search=`); with it, that group's details
 * (the current group, spec §4), where what you may change follows your role (spec §6).
 */
import { useSearch } from '@tanstack/react-router';
import { GroupDetails } from './GroupDetails.tsx';
import { GroupList } from './GroupList.tsx';
import { readGroupsSearch } from './search.ts';
import './groups.css';

export function SyntheticGroupsScreen() {
  const search = readGroupsSearch(useSearch({ strict: false }) as Record<string, unknown>);
  return search.group ? <GroupDetails groupId={search.group} search={search} /> : <GroupList search={search} />;
}

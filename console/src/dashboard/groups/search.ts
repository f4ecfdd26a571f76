// The synthetic-groups screen's URL state: `group` opens one group's details (the current
// group), `search` and `team` filter the list, `from`/`to` pick the usage range of the details.
// Anything else in the URL, or a malformed value, is ignored.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface GroupsSearch {
  group?: string;
  search?: string;
  team?: string;
  from?: string;
  to?: string;
}

const day = (value: unknown) => (typeof value === 'string' && ISO_DAY.test(value) && !Number.isNaN(Date.parse(value)) ? value : undefined);

export function readGroupsSearch(raw: Record<string, unknown>): GroupsSearch {
  const group = typeof raw.group === 'string' && UUID.test(raw.group) ? raw.group : undefined;
  const search = typeof raw.search === 'string' && raw.search.trim().length > 0 ? raw.search.slice(0, 200) : undefined;
  const team = typeof raw.team === 'string' && UUID.test(raw.team) ? raw.team : undefined;
  const from = day(raw.from);
  const to = day(raw.to);
  const range = from && to && from > to ? {} : { ...(from && { from }), ...(to && { to }) };
  return { ...(group && { group }), ...(search && { search }), ...(team && { team }), ...range };
}

/** The URL state that opens a group's details. */
export const groupDetailsSearch = (groupId: string): GroupsSearch => ({ group: groupId });

// A usage panel's date range as the URL carries it (`from`, `to`: yyyy-mm-dd, the team's
// calendar days). What the URL leaves out the API chooses (the last 30 days up to today,
// from the plan's look-back when shorter) and the panel shows the dates it answered for.
import type { DateRange } from '../../api/connections/queries.ts';

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const day = (value: unknown) => (typeof value === 'string' && ISO_DAY.test(value) && !Number.isNaN(Date.parse(value)) ? value : undefined);

/** The URL's valid edges of the range; none when they are reversed. */
export function rangeFrom(search: { from?: unknown; to?: unknown }): DateRange {
  const startDate = day(search.from);
  const endDate = day(search.to);
  if (startDate && endDate && startDate > endDate) return {};
  return { ...(startDate && { startDate }), ...(endDate && { endDate }) };
}

// Date ranges for usage panels (spec §3: yyyy-mm-dd, by default the last 30 days up to
// today), as the URL carries them; dates are UTC days, as the API counts them.
const DAY_MS = 86_400_000;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

export const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export function defaultRange(now: Date = new Date()) {
  return { startDate: isoDay(new Date(now.getTime() - 29 * DAY_MS)), endDate: isoDay(now) };
}

/** The range the URL gives when it is a valid one (start not after end), else the default. */
export function rangeFrom(search: { from?: unknown; to?: unknown }, now: Date = new Date()) {
  const fallback = defaultRange(now);
  const from = typeof search.from === 'string' && ISO_DAY.test(search.from) && !Number.isNaN(Date.parse(search.from)) ? search.from : undefined;
  const to = typeof search.to === 'string' && ISO_DAY.test(search.to) && !Number.isNaN(Date.parse(search.to)) ? search.to : undefined;
  const range = { startDate: from ?? fallback.startDate, endDate: to ?? fallback.endDate };
  return range.startDate <= range.endDate ? range : fallback;
}

/** This calendar month (UTC) up to today. */
export function thisMonth(now: Date = new Date()) {
  return { startDate: `${isoDay(now).slice(0, 7)}-01`, endDate: isoDay(now) };
}

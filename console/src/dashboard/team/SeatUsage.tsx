/**
 * The team's seats against its plan's free seats (spec §9: Developers 2, Growth 5, then
 * a price per user; Enterprise custom): members and pending invitations take one each.
 * On a trial the last free seat is the last one; a paid plan charges the next ones.
 */
import { formatMoney, money } from '@spendgate/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { teamSeatsQuery } from '../../api/team/queries.ts';
import type { TeamSeats } from '../../api/team/types.ts';
import { ErrorState, LoadingState } from '../ui/States.tsx';

const seatsWord = (count: number) => `${count} seat${count === 1 ? '' : 's'}`;

/** What the team's seats come to, in one sentence. */
export function seatSummary(seats: TeamSeats): string {
  const taken = seats.used + seats.pending;
  const pending = seats.pending > 0 ? ` (${seats.pending} by pending invitation${seats.pending === 1 ? '' : 's'})` : '';
  if (seats.included === null) return `${seatsWord(taken)} taken${pending}. Your ${seats.plan} plan has custom seats.`;
  const extra = seats.extraSeatMonthlyMicros === null ? null : formatMoney(money(BigInt(seats.extraSeatMonthlyMicros), seats.currency));
  const then = !seats.paying
    ? taken >= seats.included
      ? 'Choose a paid plan to add more.'
      : 'Choose a paid plan to go past them.'
    : extra
      ? `Each seat past them costs ${extra} a month.`
      : '';
  return `${taken} of ${seatsWord(seats.included)} free on your ${seats.plan} plan taken${pending}. ${then}`.trim();
}

/** Members and pending invitations against the free seats, as a bar (decoration: the sentence under it says the same). */
function SeatMeter({ used, pending, included }: { used: number; pending: number; included: number }) {
  const usedPercent = Math.min(100, (100 * used) / Math.max(1, included));
  const pendingPercent = Math.min(100 - usedPercent, (100 * pending) / Math.max(1, included));
  return (
    <div className="seats__meter" aria-hidden="true">
      <span className="seats__used" style={{ width: `${usedPercent}%` }} />
      <span className="seats__pending" style={{ width: `${pendingPercent}%` }} />
    </div>
  );
}

export function SeatUsage({ teamId }: { teamId: string }) {
  const seats = useQuery(teamSeatsQuery(teamId));
  return (
    <section className="settings-panel seats" aria-labelledby="seats-title">
      <h2 id="seats-title" className="settings-panel__title">
        Seats
      </h2>
      {seats.isPending ? (
        <LoadingState label="Counting seats…" />
      ) : seats.isError ? (
        <ErrorState error={seats.error} onRetry={() => seats.refetch()} retrying={seats.isRefetching} />
      ) : (
        <>
          {seats.data.included !== null && <SeatMeter used={seats.data.used} pending={seats.data.pending} included={seats.data.included} />}
          <p className="settings-panel__text">{seatSummary(seats.data)}</p>
          {!seats.data.paying && (
            <Link to="/dashboard/settings/subscription" className="text-link">
              See plans and subscription
            </Link>
          )}
        </>
      )}
    </section>
  );
}

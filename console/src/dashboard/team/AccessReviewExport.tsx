/**
 * The access review on the Team screen (team admins): who holds which role in the team and
 * each synthetic group, when they joined and when they last signed in, downloaded as a CSV
 * file. ISO/SOC2 readiness is on the Enterprise plan: on another plan (read from the team's
 * seats, as the GPU screen does) the panel says so and offers Contact Sales, without asking.
 */
import { complianceRefusal, planTerms } from '@spendgate/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { accessReviewMutation } from '../../api/compliance/mutations.ts';
import { teamSeatsQuery } from '../../api/team/queries.ts';
import { salesMailto } from '../../shared/config.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';

export function AccessReviewExport({ teamId }: { teamId: string }) {
  const seats = useQuery(teamSeatsQuery(teamId));
  const download = useMutation(accessReviewMutation(teamId));
  if (seats.isPending) return <LoadingState label="Loading your team's plan…" />;
  if (seats.isError) return <ErrorState error={seats.error} title="Your team's plan could not be loaded" onRetry={() => seats.refetch()} retrying={seats.isFetching} />;
  const terms = planTerms(seats.data.planSlug);
  return (
    <section className="settings-panel" aria-labelledby="access-review-title">
      <h2 id="access-review-title" className="settings-panel__title">
        Access review
      </h2>
      <p className="settings-panel__text">
        Who holds which role in this team and in each of its groups, when they joined, and when they last signed in: the list an ISO 27001 or SOC 2 access
        review asks for.
      </p>
      {terms.complianceReadiness ? (
        <>
          <button type="button" className="button button--primary" disabled={download.isPending} onClick={() => download.mutate()}>
            {download.isPending ? 'Exporting…' : 'Export access review (CSV)'}
          </button>
          <FormError error={download.error} />
          {download.isSuccess && !download.isPending && (
            <p className="alert alert--success" role="status">
              Saved {download.data}.
            </p>
          )}
        </>
      ) : (
        <>
          <p className="settings-panel__text">{complianceRefusal(terms)}.</p>
          <a className="button button--primary" href={salesMailto()}>
            Contact Sales
          </a>
        </>
      )}
    </section>
  );
}

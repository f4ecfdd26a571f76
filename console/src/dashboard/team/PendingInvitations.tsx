/**
 * The team's invitations waiting for an answer (team admins): to whom, as what, until
 * when. Each can be sent again (a new link; the old one stops working) or withdrawn
 * (after confirming; its seat is freed), each with its own loading flag.
 */
import { useMutation, useMutationState, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { resendInvitationMutation, revokeInvitationMutation, teamMutationKeys } from '../../api/team/mutations.ts';
import { pendingInvitationsQuery } from '../../api/team/queries.ts';
import type { TeamInvitation } from '../../api/team/types.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { ROLE_LABELS } from './InviteMemberForm.tsx';

const expiryDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

/** The invitations a pending mutation of `key` is acting on, by id. */
function usePendingIds(key: readonly string[]): Set<string> {
  const pending = useMutationState({
    filters: { mutationKey: key, status: 'pending' },
    select: (mutation) => (mutation.state.variables as Pick<TeamInvitation, 'id'> | undefined)?.id,
  });
  return new Set(pending.filter((id): id is string => id !== undefined));
}

export function PendingInvitations({ teamId }: { teamId: string }) {
  const queryClient = useQueryClient();
  const invitations = useQuery(pendingInvitationsQuery(teamId));
  const resend = useMutation(resendInvitationMutation(queryClient));
  const revoke = useMutation(revokeInvitationMutation(queryClient));
  const resending = usePendingIds(teamMutationKeys.resend);
  const revoking = usePendingIds(teamMutationKeys.revoke);
  const [confirming, setConfirming] = useState<TeamInvitation | null>(null);

  return (
    <section className="settings-panel" aria-labelledby="pending-invitations-title">
      <h2 id="pending-invitations-title" className="settings-panel__title">
        Pending invitations {invitations.data && <span className="settings-panel__count">{invitations.data.length}</span>}
      </h2>
      {invitations.isPending ? (
        <LoadingState label="Loading invitations…" />
      ) : invitations.isError ? (
        <ErrorState error={invitations.error} onRetry={() => invitations.refetch()} retrying={invitations.isRefetching} />
      ) : invitations.data.length === 0 ? (
        <p className="settings-panel__text">No invitation is waiting for an answer.</p>
      ) : (
        <>
          <FormError error={resend.error} />
          {resend.isSuccess && !resend.isPending && (
            <p className="alert alert--success" role="status">
              A new invitation is on its way to {resend.data.email}.
            </p>
          )}
          <ul className="member-list">
            {invitations.data.map((invitation) => (
              <li key={invitation.id} className="member member--invitation" aria-label={invitation.email}>
                <div className="member__who">
                  <span className="member__name">{invitation.email}</span>
                  <span className="member__email">Invited as {ROLE_LABELS[invitation.role]}</span>
                </div>
                <span className="member__joined">Expires {expiryDate.format(new Date(invitation.expiresAt))}</span>
                <div className="member__actions">
                  <button type="button" className="button button--ghost button--small" disabled={resending.has(invitation.id)} onClick={() => resend.mutate(invitation)}>
                    {resending.has(invitation.id) ? 'Resending…' : 'Resend'}
                  </button>
                  <button
                    type="button"
                    className="button button--ghost button--small"
                    disabled={revoking.has(invitation.id)}
                    onClick={() => {
                      revoke.reset();
                      setConfirming(invitation);
                    }}
                  >
                    {revoking.has(invitation.id) ? 'Revoking…' : 'Revoke'}
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Revoke the invitation to ${confirming.email}?`}
          confirmLabel={revoking.has(confirming.id) ? 'Revoking…' : 'Revoke invitation'}
          destructive
          busy={revoking.has(confirming.id)}
          error={revoke.error?.message}
          onConfirm={() => revoke.mutate(confirming, { onSuccess: () => setConfirming(null) })}
          onCancel={() => setConfirming(null)}
        >
          Its link stops working and its seat is freed. You can invite them again later.
        </ConfirmDialog>
      )}
    </section>
  );
}

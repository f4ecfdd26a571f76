// /groups/accept-invite?token=: joins the synthetic group the invitation is for, then
// opens it (the group lists are refetched, so it shows among your groups).
// A signed-in user is needed ('Please log in to Continue!').
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useSearch } from '@tanstack/react-router';
import { acceptInviteMutation } from '../../api/groups/mutations.ts';
import { useSession } from '../../shared/session.ts';
import { groupDetailsSearch } from '../groups/search.ts';
import { AuthCard, FormError } from './AuthCard.tsx';

export function AcceptInviteScreen() {
  const { token } = useSearch({ strict: false });
  const session = useSession();
  const accept = useMutation(acceptInviteMutation(useQueryClient()));

  if (accept.isSuccess) {
    return (
      <AuthCard title="You're in" subtitle={`You have joined ${accept.data.name}.`}>
        <Link to="/dashboard/synthetic-groups" search={groupDetailsSearch(accept.data.id) as never} className="button button--primary button--block">
          {`Open ${accept.data.name}`}
        </Link>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Join a synthetic group"
      subtitle={token ? 'You have been invited to a synthetic group on Spendgate.' : 'This invitation link is incomplete.'}
      footer={
        session.token ? undefined : (
          <>
            Log in with the e-mail address the invitation was sent to, and you come back here; or sign up with it, then open the invitation link again.{' '}
            <Link to="/login" search={token ? { next: `/groups/accept-invite?token=${encodeURIComponent(token)}` } : {}} className="text-link">
              Log in
            </Link>{' '}
            or{' '}
            <Link to="/register" className="text-link">
              Sign up
            </Link>
          </>
        )
      }
    >
      <FormError error={accept.error} />
      <button type="button" className="button button--primary button--block" disabled={!token || accept.isPending} onClick={() => token && accept.mutate(token)}>
        {accept.isPending ? 'Accepting…' : 'Accept invitation'}
      </button>
    </AuthCard>
  );
}

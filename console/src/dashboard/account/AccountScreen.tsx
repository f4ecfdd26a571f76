// /dashboard/settings/account: how the signed-in user signs in and is shown.
import { useSession } from '../../shared/session.ts';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';

export function AccountScreen() {
  const { user } = useSession();
  return (
    <ScreenFrame title="Account" description="How you sign in and how your team sees you.">
      <dl className="details">
        <div>
          <dt>Name</dt>
          <dd>{user?.name ?? '—'}</dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd>{user?.email ?? '—'}</dd>
        </div>
      </dl>
    </ScreenFrame>
  );
}

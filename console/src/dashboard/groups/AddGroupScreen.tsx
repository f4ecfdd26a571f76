// /dashboard/addgroup: creating a synthetic group.
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';

export function AddGroupScreen() {
  return (
    <ScreenFrame title="Add a synthetic group" description="Name the group, choose its members and their roles.">
      <EmptyState icon="plus" title="Create a group" text="Groups collect usage and keys for one team, product or customer." />
    </ScreenFrame>
  );
}

// /dashboard/synthetic-groups: the groups spend is attributed to.
import { Link } from '@tanstack/react-router';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';

export function SyntheticGroupsScreen() {
  return (
    <ScreenFrame
      title="Synthetic Groups"
      description="Usage grouped by team, product or customer, each with its own members and keys."
      actions={
        <Link to="/dashboard/addgroup" className="button button--primary">
          Add group
        </Link>
      }
    >
      <EmptyState icon="layers" title="No groups yet" text="Create a group to attribute spend and issue keys to it." />
    </ScreenFrame>
  );
}

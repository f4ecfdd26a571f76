// The 404 screen for any unknown path.
import { StatusScreen } from '../components/StatusScreen.tsx';

export function NotFoundPage() {
  return <StatusScreen code={404} title="Page Not Found" message="The page you're looking for doesn't exist or has been moved." />;
}

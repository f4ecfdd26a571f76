// /dashboard/ai-connection: the provider accounts the team routes requests to.
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';

export function AiConnectionsScreen() {
  return (
    <ScreenFrame title="AI Connections" description="The provider accounts your team routes requests to.">
      <EmptyState icon="plug" title="No connections yet" text="Add an API key for OpenAI, Anthropic, Gemini or your own model endpoint." />
    </ScreenFrame>
  );
}

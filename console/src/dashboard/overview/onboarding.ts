/**
 * The first-run checklist and the client snippets of the dashboard's first screen.
 * Each step is ticked from real data: the user's teams and the team's overview (GET
 * /usage/team: connections, groups, live keys, first request). The snippets point the
 * `openai` and `@anthropic-ai/sdk` clients at the gateway this console is served by,
 * with a key just issued in this session or, failing that, a marked placeholder.
 */
import type { TeamOverview } from '../../api/overview/types.ts';

export type StepId = 'team' | 'connection' | 'group' | 'key' | 'request';

export interface ChecklistStep {
  id: StepId;
  title: string;
  /** What to do while the step is open. */
  hint: string;
  done: boolean;
  /** Where the step is done; none when the user cannot do it (or it is done from their terminal). */
  to?: string;
  action: string;
}

/** `mayConnect`: whether the user may add connections (team admins): others are told who can. */
export function checklist(hasTeam: boolean, overview: TeamOverview | undefined, mayConnect = true): ChecklistStep[] {
  const setup = overview?.setup;
  return [
    { id: 'team', title: 'Create or join a team', hint: 'Connections, groups, keys and budgets belong to a team.', done: hasTeam, to: '/dashboard/settings/team', action: 'Set up your team' },
    {
      id: 'connection',
      title: 'Connect a provider',
      hint: mayConnect
        ? 'Add the API key of OpenAI, Anthropic, Gemini, Azure OpenAI or your own model server.'
        : 'A team admin connects the provider accounts your team uses: ask one to add them.',
      done: (setup?.connections ?? 0) > 0,
      ...(mayConnect ? { to: '/dashboard/ai-connection' } : {}),
      action: 'Connect a provider',
    },
    { id: 'group', title: 'Create a group', hint: 'A synthetic group gathers the usage of a team, product or customer.', done: (setup?.groups ?? 0) > 0, to: '/dashboard/addgroup', action: 'Create a group' },
    { id: 'key', title: 'Issue a key', hint: 'Issue a key in a group: your applications call the gateway with it.', done: (setup?.keys ?? 0) > 0, to: '/dashboard/synthetic-groups', action: 'Issue a key' },
    {
      id: 'request',
      title: 'Send a first request',
      hint: 'Call the gateway with the key using one of the snippets below; the request shows here within seconds.',
      done: Boolean(setup?.firstRequestAt),
      action: 'See the snippets',
    },
  ];
}

/** What the snippets say in place of a key the user has not just issued: an obvious, invalid key. */
export const KEY_PLACEHOLDER = 'sg_live_REPLACE_WITH_YOUR_KEY';

/** The gateway's address as the browser reaches this console: the gateway serves both. */
export const gatewayOrigin = () => window.location.origin;

export function openAISnippet(origin: string, key: string): string {
  return [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${origin}/v1', apiKey: '${key}' });`,
    '',
    'const answer = await client.chat.completions.create({',
    "  model: 'gpt-4o-mini',",
    "  messages: [{ role: 'user', content: 'Hello from Spendgate' }],",
    '});',
    'console.log(answer.choices[0].message.content);',
  ].join('\n');
}

/** The Anthropic SDK takes the gateway's root: it adds /v1 itself. */
export function anthropicSnippet(origin: string, key: string): string {
  return [
    "import Anthropic from '@anthropic-ai/sdk';",
    '',
    `const client = new Anthropic({ baseURL: '${origin}', apiKey: '${key}' });`,
    '',
    'const message = await client.messages.create({',
    "  model: 'claude-haiku-4-5',",
    '  max_tokens: 256,',
    "  messages: [{ role: 'user', content: 'Hello from Spendgate' }],",
    '});',
    'console.log(message.content);',
  ].join('\n');
}

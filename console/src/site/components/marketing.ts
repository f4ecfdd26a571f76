// Marketing copy shared by several pages (spec §1): claims and the feature list.
import type { IconName } from '../../shared/ui/Icon.tsx';

export const MARKETING_STATS = [
  { figure: '£50k', label: 'What a single team experiment can run up before anyone notices' },
  { figure: '30-40%', label: 'Of enterprise AI spend lost to waste' },
  { figure: '73%', label: 'Of enterprises lack visibility into their AI spend' },
  { figure: 'Up to 35%', label: 'Cost cut by teams in their first month' },
] as const;

export const KEY_FEATURES: { icon: IconName; title: string; text: string }[] = [
  { icon: 'chart', title: 'Unified usage dashboard', text: 'Tokens, prompts and cost from every provider in one real-time view.' },
  { icon: 'layers', title: 'Synthetic groups', text: 'Group usage by team, product or customer and see exactly who spends what.' },
  { icon: 'models', title: 'Multi-model support', text: 'OpenAI, Anthropic, Gemini, Mistral and more behind one OpenAI-compatible endpoint.' },
  { icon: 'bulb', title: 'AI Advisor', text: 'Cost optimisation tips drawn from your own usage patterns.' },
  { icon: 'route', title: 'Smart model distribution', text: 'Optimised keys route each request to the best model for cost, speed and accuracy.' },
  { icon: 'key', title: 'Bring your own key', text: 'Use your existing provider contracts; keys are envelope-encrypted per team.' },
  { icon: 'server', title: 'BYOM routing', text: 'Route to your own self-hosted or fine-tuned models and meter them the same way.' },
  { icon: 'bell', title: 'Spend alerts', text: 'Budgets and thresholds with alerts before a bill surprises anyone.' },
  { icon: 'trend', title: 'Cost forecasting', text: "Forecast next month's AI bill with confidence ranges, per team and group." },
];

export const PROVIDERS = ['OpenAI', 'Anthropic', 'Google Gemini', 'Mistral', 'Azure OpenAI', 'Groq', 'DeepSeek', 'xAI'];

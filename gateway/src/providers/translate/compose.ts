/**
 * Chains two translators through a hub format: a caller of format A served by a
 * provider of format P through H, e.g. Anthropic → OpenAI → Gemini.
 */
import type { FormatTranslator, StreamTranslator } from './types.ts';

/**
 * `outer` turns the caller's format into the hub's, `inner` the hub's into the
 * provider's. Requests go outer then inner; answers, stream events and errors come
 * back inner then outer.
 *
 * @example
 * const anthropicToGemini = composeTranslators(anthropicToOpenAI, openAIToGemini);
 */
export function composeTranslators<CallerRequest, HubRequest, ProviderRequest, CallerResponse, HubResponse, ProviderResponse>(
  outer: FormatTranslator<CallerRequest, HubRequest, CallerResponse, HubResponse>,
  inner: FormatTranslator<HubRequest, ProviderRequest, HubResponse, ProviderResponse>,
): FormatTranslator<CallerRequest, ProviderRequest, CallerResponse, ProviderResponse> {
  return {
    request: (body) => inner.request(outer.request(body)),
    response: (answer, context) => outer.response(inner.response(answer, context), context),
    stream(context): StreamTranslator {
      const providerToHub = inner.stream(context);
      const hubToCaller = outer.stream(context);
      return {
        push: (event) => providerToHub.push(event).flatMap((hubEvent) => hubToCaller.push(hubEvent)),
        end: () => [...providerToHub.end().flatMap((hubEvent) => hubToCaller.push(hubEvent)), ...hubToCaller.end()],
      };
    },
    error: (status, body) => outer.error(status, inner.error(status, body)),
  };
}

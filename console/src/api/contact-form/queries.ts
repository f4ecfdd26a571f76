// Contact-form queries. A failure to load is only logged (the form keeps its spinner).
import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../client.ts';
import type { ContactFormDefinition } from './types.ts';

export const contactFormKeys = {
  all: ['contact-form'] as const,
  definition: () => [...contactFormKeys.all, 'definition'] as const,
};

export const contactFormDefinitionQuery = () =>
  queryOptions({
    queryKey: contactFormKeys.definition(),
    queryFn: async ({ signal }) => {
      const answer = await apiRequest<ContactFormDefinition[]>('GET', '/contact-form/', { signal }).catch((error: unknown) => {
        console.error('Could not load the contact form', error);
        throw error;
      });
      const definition = answer.success ? answer.data[0]?.form_fields : undefined;
      if (!definition) throw new Error('The contact form has no definition');
      return definition;
    },
    retry: false,
    staleTime: 10 * 60_000,
  });

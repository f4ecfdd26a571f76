// FAQ queries. A failure to load is only logged and leaves an empty list (spec §8).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { Faq } from './types.ts';

export const faqKeys = {
  all: ['faqs'] as const,
  list: () => [...faqKeys.all, 'list'] as const,
};

export const faqListQuery = () =>
  queryOptions({
    queryKey: faqKeys.list(),
    queryFn: async ({ signal }) => {
      try {
        return await apiData<Faq[]>('GET', '/admin/faqs', { signal });
      } catch (error) {
        console.error('Could not load the FAQs', error);
        return [];
      }
    },
    staleTime: 5 * 60_000,
  });

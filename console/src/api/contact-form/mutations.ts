/**
 * Sending the contact form. Resolves with the server's message on success; rejects
 * with ContactFormRejected holding the lines to list: the server's errors, else its
 * message, else 'An error occurred while submitting the form' when the request failed.
 */
import { mutationOptions } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../client.ts';
import type { ContactFormAnswer, ContactFormValues } from './types.ts';

export const CONTACT_FORM_REQUEST_FAILED = 'An error occurred while submitting the form';

export class ContactFormRejected extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
    this.name = 'ContactFormRejected';
  }
}

/** The server's errors (a list, or messages per field) or its message, as lines. */
export function rejectionLines(answer: ContactFormAnswer | undefined): string[] {
  const errors = answer?.errors;
  if (Array.isArray(errors) && errors.length > 0) return errors.map(String);
  if (errors && typeof errors === 'object') {
    const lines = Object.values(errors).flatMap((value) => (Array.isArray(value) ? value : [value])).map(String);
    if (lines.length > 0) return lines;
  }
  return answer?.message ? [answer.message] : [CONTACT_FORM_REQUEST_FAILED];
}

export async function submitContactForm(values: ContactFormValues): Promise<string> {
  let answer: ContactFormAnswer;
  try {
    answer = (await apiRequest<unknown>('POST', '/contact-form/', { body: values })) as ContactFormAnswer;
  } catch (error) {
    const body = error instanceof ApiError ? (error.body as ContactFormAnswer | undefined) : undefined;
    throw new ContactFormRejected(body ? rejectionLines(body) : [CONTACT_FORM_REQUEST_FAILED]);
  }
  return answer.message ?? 'Thank you! Your message has been sent.';
}

export const submitContactFormMutation = () =>
  mutationOptions({ mutationKey: ['contact-form', 'submit'], mutationFn: submitContactForm });

/**
 * The public site's content: FAQs (platform admins edit them) and the dynamic contact
 * form, whose definition lives in the database; a submission is checked against that
 * definition (required, maxlength, email, select options) and stored.
 */
import { randomUUID } from 'node:crypto';
import { FormError, NotFoundError } from '@spendgate/core';
import {
  deleteFaq,
  findContactForm,
  insertContactSubmission,
  insertFaq,
  listFaqs,
  nextFaqPosition,
  type SqlStore,
  updateFaq,
} from '@spendgate/store';
import { z } from 'zod';

const CONTACT_FORM_SLUG = 'contact';

/** The parts of a field definition (spec §3) that validation reads. */
const FieldDefinition = z.object({
  element: z.enum(['input_name', 'input_email', 'input_text', 'select', 'textarea', 'custom_submit_button']),
  attributes: z.object({ name: z.string(), maxlength: z.coerce.number().int().positive().optional() }).loose(),
  settings: z
    .object({
      label: z.string().optional(),
      validation_rules: z.object({ required: z.object({ value: z.boolean(), message: z.string().optional() }).optional() }).loose().optional(),
      advanced_options: z.array(z.object({ value: z.string() }).loose()).optional(),
    })
    .loose(),
});
type FieldDefinition = z.infer<typeof FieldDefinition>;

const EMAIL = z.email();

function fieldProblem(field: FieldDefinition, value: string | undefined): string | undefined {
  const label = field.settings.label || field.attributes.name;
  const required = field.settings.validation_rules?.required;
  if (value === undefined || value.trim() === '') {
    return required?.value ? (required.message ?? `${label} is required`) : undefined;
  }
  const maxLength = field.attributes.maxlength;
  if (maxLength !== undefined && value.length > maxLength) return `${label} must be at most ${maxLength} characters`;
  if (field.element === 'input_email' && !EMAIL.safeParse(value.trim()).success) return `${label} must be a valid email`;
  const options = field.settings.advanced_options;
  if (field.element === 'select' && options && !options.some((option) => option.value === value)) {
    return `${label} must be one of the listed options`;
  }
  return undefined;
}

export function createSiteContentService(deps: { sql: SqlStore }) {
  const { db } = deps.sql;

  async function contactForm() {
    const form = await findContactForm(db, CONTACT_FORM_SLUG);
    if (!form) throw new NotFoundError('Contact form');
    return form;
  }

  return {
    listFaqs: () => listFaqs(db),

    async createFaq(input: { question: string; answer: string; position?: number | undefined }) {
      return insertFaq(db, {
        id: randomUUID(),
        question: input.question,
        answer: input.answer,
        position: input.position ?? (await nextFaqPosition(db)),
      });
    },

    async updateFaq(id: string, changes: { question?: string | undefined; answer?: string | undefined; position?: number | undefined }) {
      const faq = await updateFaq(db, id, Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)));
      if (!faq) throw new NotFoundError('FAQ');
      return faq;
    },

    async deleteFaq(id: string) {
      if (!(await deleteFaq(db, id))) throw new NotFoundError('FAQ');
    },

    /** The form definitions as the site reads them: `data[0].form_fields.fields`. */
    async contactForms() {
      const form = await contactForm();
      return [{ id: form.id, title: form.title, form_fields: form.form_fields, createdAt: form.created_at }];
    },

    /** Checks a submission against the stored definition; stores it or throws every problem. */
    async submitContactForm(submitted: Record<string, unknown>): Promise<string> {
      const form = await contactForm();
      const fields = form.form_fields.fields
        .map((raw) => FieldDefinition.safeParse(raw))
        .flatMap((parsed) => (parsed.success && parsed.data.element !== 'custom_submit_button' ? [parsed.data] : []));
      const errors: string[] = [];
      const values: Record<string, string> = {};
      for (const field of fields) {
        const raw = submitted[field.attributes.name];
        if (raw !== undefined && raw !== null && typeof raw !== 'string') {
          errors.push(`${field.settings.label || field.attributes.name} must be text`);
          continue;
        }
        const value = raw ?? undefined;
        const problem = fieldProblem(field, value);
        if (problem) errors.push(problem);
        else if (value !== undefined && value.trim() !== '') values[field.attributes.name] = value.trim();
      }
      if (errors.length > 0) throw new FormError(errors);
      await insertContactSubmission(db, { id: randomUUID(), formId: form.id, values });
      return form.success_message;
    },
  };
}

export type SiteContentService = ReturnType<typeof createSiteContentService>;

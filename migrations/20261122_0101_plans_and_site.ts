// Subscription plans (seeded from core's plan terms at every start) and each account's
// subscription; the public site's content: FAQs (seeded here with the first answers)
// and the dynamic contact form (its definition and the submissions it receives).
import { type Kysely, sql } from 'kysely';

const FAQS: [string, string][] = [
  [
    'What is Spendgate?',
    'Spendgate is a gateway between your applications and your AI providers. Every request made with a Spendgate key is priced from the provider’s list prices, attributed to its team, synthetic group and key, checked against your budgets, and shown in the dashboard within seconds.',
  ],
  [
    'Do I need to change my code to use it?',
    'No. Official SDKs work unchanged: point the SDK’s base URL at your Spendgate gateway and use the key Spendgate issues instead of the provider key. Streaming, tools and every other request field pass through as they are.',
  ],
  [
    'Which providers can I connect?',
    'You can connect the providers your teams already use and bring your own model:\n• OpenAI and any OpenAI-compatible endpoint\n• Anthropic and Google Gemini, as their adapters are enabled\n• Your own hosted models (BYOM), routed by Spendgate',
  ],
  [
    'How are my provider keys protected?',
    'Provider keys are encrypted with AES-256-GCM under a data key that belongs to your team, itself encrypted by a master key that never leaves the server. After you save a key, only its last four characters are ever shown again, and it never appears in logs.',
  ],
  [
    'What are synthetic groups?',
    'A synthetic group collects usage by team, product or customer. Each group has its own members, roles (Admin, Maintainer, Observer), keys and usage, so you can see and cap what each one spends.',
  ],
  [
    'How does the free trial work?',
    'The first 60 days are free and no credit card is required. Billing is metered, so after the trial you pay for what you use, and you can cancel at any time.',
  ],
];

const CONTACT_FORM_FIELDS = {
  fields: [
    {
      element: 'input_name',
      attributes: { name: 'names', type: 'text', placeholder: 'Your full name', maxlength: 100 },
      settings: {
        label: 'Full Name',
        admin_field_label: 'Name',
        container_class: 'form-group',
        help_message: '',
        validation_rules: { required: { value: true, message: 'Full Name is required' } },
        visible: true,
      },
      uniqElKey: 'el_names',
    },
    {
      element: 'input_email',
      attributes: { name: 'email', type: 'email', placeholder: 'you@company.com', maxlength: 254 },
      settings: {
        label: 'Work Email',
        admin_field_label: 'Email',
        container_class: 'form-group',
        help_message: 'We only use it to reply to you.',
        validation_rules: { required: { value: true, message: 'Work Email is required' } },
        visible: true,
      },
      uniqElKey: 'el_email',
    },
    {
      element: 'input_text',
      attributes: { name: 'company', type: 'text', placeholder: 'Company name', maxlength: 150 },
      settings: {
        label: 'Company',
        admin_field_label: 'Company',
        container_class: 'form-group',
        help_message: '',
        validation_rules: { required: { value: false, message: 'Company is required' } },
        visible: true,
      },
      uniqElKey: 'el_company',
    },
    {
      element: 'select',
      attributes: { name: 'team_size', type: 'select', placeholder: 'Select your team size' },
      settings: {
        label: 'Team Size',
        admin_field_label: 'Team size',
        container_class: 'form-group',
        help_message: '',
        validation_rules: { required: { value: false, message: 'Team Size is required' } },
        advanced_options: [
          { id: 'size_1', label: '1–10', value: '1-10' },
          { id: 'size_2', label: '11–50', value: '11-50' },
          { id: 'size_3', label: '51–200', value: '51-200' },
          { id: 'size_4', label: 'More than 200', value: '200+' },
        ],
        visible: true,
      },
      uniqElKey: 'el_team_size',
    },
    {
      element: 'textarea',
      attributes: { name: 'message', type: 'textarea', placeholder: 'Which AI providers do you use, and what would you like to control?', maxlength: 2000, rows: 4, cols: 2 },
      settings: {
        label: 'Message',
        admin_field_label: 'Message',
        container_class: 'form-group',
        help_message: '',
        validation_rules: { required: { value: false, message: 'Message is required' } },
        visible: true,
      },
      uniqElKey: 'el_message',
    },
    {
      element: 'custom_submit_button',
      attributes: { name: 'submit', type: 'submit' },
      settings: {
        label: '',
        container_class: 'form-group',
        button_ui: { type: 'default', text: 'Get Early Access' },
        normal_styles: { backgroundColor: '#7c3aed', borderColor: '#7c3aed', color: '#ffffff', borderRadius: '6px', minWidth: '100%' },
        hover_styles: { backgroundColor: '#6d28d9', borderColor: '#6d28d9', color: '#ffffff', borderRadius: '6px', minWidth: '100%' },
        visible: true,
      },
      uniqElKey: 'el_submit',
    },
  ],
};

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscription_plans')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('price_micros', 'bigint')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('listed', 'boolean', (c) => c.notNull())
    .addColumn('features', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('plan_slug', 'text', (c) => c.notNull().references('subscription_plans.slug'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('trialing', 'active', 'cancelled')`))
    .addColumn('trial_end', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('faqs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('question', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db
    .insertInto('faqs')
    .values(FAQS.map(([question, answer], index) => ({ id: sql`gen_random_uuid()`, question, answer, position: (index + 1) * 10 })))
    .execute();

  await db.schema
    .createTable('contact_forms')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('success_message', 'text', (c) => c.notNull())
    .addColumn('form_fields', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db
    .insertInto('contact_forms')
    .values({
      id: sql`gen_random_uuid()`,
      slug: 'contact',
      title: 'Get Early Access!',
      success_message: 'Thank you! We have your details and will be in touch soon.',
      form_fields: JSON.stringify(CONTACT_FORM_FIELDS),
    })
    .execute();

  await db.schema
    .createTable('contact_form_submissions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('form_id', 'uuid', (c) => c.notNull().references('contact_forms.id').onDelete('cascade'))
    .addColumn('submitted_values', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['contact_form_submissions', 'contact_forms', 'faqs', 'subscriptions', 'subscription_plans']) {
    await db.schema.dropTable(table).execute();
  }
}

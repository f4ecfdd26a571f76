// @vitest-environment happy-dom
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONTACT_FORM_REQUEST_FAILED } from '../../api/contact-form/mutations.ts';
import type { FormFieldDefinition } from '../../api/contact-form/types.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { ContactForm, DEFAULT_TEXTAREA_ROWS, DynamicForm } from './ContactForm.tsx';

const required = { validation_rules: { required: { value: true } } };
const fields: FormFieldDefinition[] = [
  { element: 'input_name', uniqElKey: 'el_names', attributes: { name: 'names', placeholder: 'Your full name', maxlength: 100 }, settings: { label: 'Full Name', ...required } },
  { element: 'input_email', uniqElKey: 'el_email', attributes: { name: 'email', maxlength: 254 }, settings: { label: 'Work Email', help_message: 'We only use it to reply to you.', ...required } },
  { element: 'input_text', uniqElKey: 'el_company', attributes: { name: 'company', maxlength: 150 }, settings: { label: 'Company', prefix_label: 'at' } },
  {
    element: 'select',
    uniqElKey: 'el_size',
    attributes: { name: 'team_size', placeholder: 'Select your team size' },
    settings: { label: 'Team Size', advanced_options: [{ id: 1, label: '1–10', value: '1-10' }, { id: 2, label: '11–50', value: '11-50' }] },
  },
  { element: 'textarea', uniqElKey: 'el_message', attributes: { name: 'message', maxlength: 2000 }, settings: { label: 'Message' } },
  { element: 'input_text', uniqElKey: 'el_hidden', attributes: { name: 'hidden' }, settings: { label: 'Hidden', visible: false } },
  {
    element: 'custom_submit_button',
    uniqElKey: 'el_submit',
    settings: { button_ui: { text: 'Get Early Access' }, normal_styles: { backgroundColor: 'rgb(124, 58, 237)' }, hover_styles: { backgroundColor: 'rgb(109, 40, 217)' } },
  },
];

const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function fillRequired() {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText(/Full Name/), 'Ada Lovelace');
  await user.type(screen.getByLabelText(/Work Email/), 'ada@example.com');
  await user.selectOptions(screen.getByLabelText('Team Size'), '11-50');
  await user.type(screen.getByLabelText('Message'), 'We use three providers.');
  return user;
}

describe('DynamicForm', () => {
  it('renders every element type with its rules from the definition', async () => {
    await renderInSite(<DynamicForm fields={fields} />);
    const name = screen.getByLabelText(/Full Name/) as HTMLInputElement;
    expect(name.required).toBe(true);
    expect(name.maxLength).toBe(100);
    expect(name.placeholder).toBe('Your full name');
    const email = screen.getByLabelText(/Work Email/) as HTMLInputElement;
    expect(email.type).toBe('email');
    expect(email.required).toBe(true);
    expect(screen.getByText('We only use it to reply to you.')).toBeTruthy();
    const company = screen.getByLabelText('Company') as HTMLInputElement;
    expect(company.required).toBe(false);
    expect(company.maxLength).toBe(150);
    expect(screen.getByText('at')).toBeTruthy();
    const size = screen.getByLabelText('Team Size') as HTMLSelectElement;
    expect([...size.options].map((option) => option.text)).toEqual(['Select your team size', '1–10', '11–50']);
    const message = screen.getByLabelText('Message') as HTMLTextAreaElement;
    expect(message.tagName).toBe('TEXTAREA');
    expect(message.getAttribute('rows')).toBe(String(DEFAULT_TEXTAREA_ROWS));
    expect(message.maxLength).toBe(2000);
    expect(screen.queryByLabelText('Hidden')).toBeNull();
    const submit = screen.getByRole('button', { name: 'Get Early Access' }) as HTMLButtonElement;
    expect(submit.style.backgroundColor).toBe('rgb(124, 58, 237)');
    expect(submit.style.minWidth).toBe('100%');
  });

  it("sends the values, reads 'Submitting...' meanwhile, then shows the server's message and clears the fields", async () => {
    let answer: (response: Response) => void = () => {};
    fetchMock.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    await renderInSite(<DynamicForm fields={fields} />);
    const user = await fillRequired();
    await user.click(screen.getByRole('button', { name: 'Get Early Access' }));

    const busy = await screen.findByRole('button', { name: 'Submitting...' });
    expect((busy as HTMLButtonElement).disabled).toBe(true);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/contact-form/');
    expect(init?.method).toBe('POST');
    expect(JSON.parse(String(init?.body))).toEqual({ names: 'Ada Lovelace', email: 'ada@example.com', company: '', team_size: '11-50', message: 'We use three providers.' });

    answer(jsonResponse(201, { success: true, data: null, message: 'Thanks — we will be in touch within one working day.' }));
    expect(await screen.findByText('Thanks — we will be in touch within one working day.')).toBeTruthy();
    expect((screen.getByLabelText(/Full Name/) as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText('Team Size') as HTMLSelectElement).value).toBe('');
    expect((screen.getByRole('button', { name: 'Get Early Access' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("lists the server's errors and keeps the values when it refuses", async () => {
    fetchMock.mockResolvedValue(jsonResponse(422, { success: false, message: 'Please check the form', errors: ['Work Email is required', 'Full Name is too long'] }));
    await renderInSite(<DynamicForm fields={fields} />);
    const user = await fillRequired();
    await user.click(screen.getByRole('button', { name: 'Get Early Access' }));

    const alert = await screen.findByRole('alert');
    expect([...alert.querySelectorAll('li')].map((item) => item.textContent)).toEqual(['Work Email is required', 'Full Name is too long']);
    expect((screen.getByLabelText(/Full Name/) as HTMLInputElement).value).toBe('Ada Lovelace');
  });

  it('lists errors given per field, or the message alone', async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(422, { success: false, errors: { email: 'Work Email is required' } }));
    await renderInSite(<DynamicForm fields={fields} />);
    const user = await fillRequired();
    await user.click(screen.getByRole('button', { name: 'Get Early Access' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Work Email is required');

    fetchMock.mockResolvedValueOnce(jsonResponse(429, { success: false, message: 'Too many requests, try again later' }));
    await user.click(screen.getByRole('button', { name: 'Get Early Access' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Too many requests, try again later'));
  });

  it(`says '${CONTACT_FORM_REQUEST_FAILED}' when the request itself fails`, async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    await renderInSite(<DynamicForm fields={fields} />);
    const user = await fillRequired();
    await user.click(screen.getByRole('button', { name: 'Get Early Access' }));
    expect((await screen.findByRole('alert')).textContent).toBe(CONTACT_FORM_REQUEST_FAILED);
  });
});

describe('ContactForm', () => {
  it('shows a spinner until the definition arrives, then the form from data[0].form_fields', async () => {
    let answer: (response: Response) => void = () => {};
    fetchMock.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    await renderInSite(<ContactForm />);
    expect(screen.getByRole('status')).toBeTruthy();
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/contact-form/');

    answer(jsonResponse(200, { success: true, data: [{ form_fields: { fields } }] }));
    expect(await screen.findByRole('button', { name: 'Get Early Access' })).toBeTruthy();
  });

  it('keeps the spinner and only logs when the definition cannot be loaded', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    await renderInSite(<ContactForm />);
    await waitFor(() => expect(logged).toHaveBeenCalled());
    expect(screen.getByRole('status')).toBeTruthy();
    expect(screen.queryByRole('form')).toBeNull();
    logged.mockRestore();
  });
});

// The dynamic contact form: its definition as GET /contact-form/ answers it
// (data[0].form_fields.fields) and the answer to POST /contact-form/.

export type FormElement = 'input_name' | 'input_email' | 'input_text' | 'select' | 'textarea' | 'custom_submit_button';

export interface FieldOption {
  id?: string | number;
  label: string;
  value: string;
}

export interface FieldAttributes {
  name?: string;
  type?: string;
  placeholder?: string;
  maxlength?: number | string | null;
  rows?: number | string | null;
  cols?: number | string | null;
}

export interface FieldSettings {
  label?: string;
  admin_field_label?: string;
  container_class?: string;
  help_message?: string;
  prefix_label?: string;
  suffix_label?: string;
  validation_rules?: { required?: { value?: boolean; message?: string } };
  advanced_options?: FieldOption[];
  visible?: boolean;
  button_ui?: { text?: string; type?: string };
  normal_styles?: Record<string, string>;
  hover_styles?: Record<string, string>;
}

export interface FormFieldDefinition {
  element: FormElement;
  uniqElKey?: string;
  attributes?: FieldAttributes;
  settings?: FieldSettings;
  /** input_name only: its parts (first, middle, last name), each shown when visible. */
  fields?: Record<string, FormFieldDefinition>;
}

export interface ContactFormDefinition {
  form_fields: { fields: FormFieldDefinition[] };
}

/** What POST /contact-form/ answers, on success and on failure. */
export interface ContactFormAnswer {
  success: boolean;
  message?: string;
  errors?: string[] | Record<string, string | string[]>;
}

export type ContactFormValues = Record<string, string>;

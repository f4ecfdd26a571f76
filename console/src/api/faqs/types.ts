// FAQ as GET /admin/faqs answers it.
export interface Faq {
  id: string;
  question: string;
  answer: string;
}

// Subscription plans as GET /subscription/plans answers them.
export interface Plan {
  id: string;
  name: string;
  slug: string;
  description: string;
  /** Monthly price in pounds, as the server sends it (number or decimal string). */
  price: number | string | null;
  features: string[];
  createdAt: string;
}

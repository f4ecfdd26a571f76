// Synthetic-group query keys (the group screens and their queries come with the dashboard issue).
export const groupKeys = {
  all: ['groups'] as const,
};

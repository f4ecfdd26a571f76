// Entry point of the site (the module-federation host): mounts the router and the query client.
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { queryClient } from '../api/query-client.ts';
import { router } from './router.tsx';
import '../styles/site.css';

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('The site needs an element with id "root" in index.html.');

createRoot(rootElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);

// Entry point of the console: mounts the app into #root.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { LandingPage } from './landing-page.tsx';
import './styles.css';

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('The console needs an element with id "root" in index.html.');

createRoot(rootElement).render(
  <StrictMode>
    <LandingPage />
  </StrictMode>,
);

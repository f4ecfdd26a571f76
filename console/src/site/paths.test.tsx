// The server's list of site paths (paths.ts) is the router's: a route added to one and
// not the other would answer 404 from the server or show the 404 screen in the browser.
import { describe, expect, it } from 'vitest';
import { SITE_PATHS } from './paths.ts';
import { router } from './router.tsx';

describe('SITE_PATHS', () => {
  it('lists exactly the paths of the router’s route table', () => {
    const routed = Object.keys(router.routesByPath).map((path) => (path.length > 1 ? path.replace(/\/$/, '') : path));
    expect([...new Set(routed)].sort()).toEqual([...SITE_PATHS].sort());
  });
});

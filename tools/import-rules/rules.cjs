/**
 * The house's import rules, checked in CI (`npm run check:imports`, dependency-cruiser): the layers of the
 * README's architecture, from core (pure domain) up to the gateway, worker and console.
 * A rule broken fails the run and names the import.
 */
const APP = '^(core|store|worker|gateway|console|migrations|e2e|bench)/';

module.exports = {
  forbidden: [
    {
      name: 'core-is-the-base',
      comment: 'core is the pure domain (money, prices, budgets, roles, errors): it imports nothing of the app and no package.',
      severity: 'error',
      from: { path: '^core/' },
      to: { pathNot: ['^core/', '^node_modules/vitest/', '^node_modules/fast-check/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'core-does-no-io',
      comment: 'core does no I/O: no file system, network, process or timers from Node.',
      severity: 'error',
      from: { path: '^core/src/', pathNot: '\\.test\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'store-is-below-the-apps',
      comment: 'store (PostgreSQL/PGlite, Redis, queue, secrets, outbound guard, mail) never imports the worker, the gateway or the console.',
      severity: 'error',
      from: { path: '^store/' },
      to: { path: '^(worker|gateway|console|e2e|bench)/' },
    },
    {
      name: 'worker-never-imports-gateway',
      comment: 'the worker runs without the gateway: what both need lives in store or core.',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: '^(gateway|console|e2e|bench)/' },
    },
    {
      name: 'proxy-never-imports-control',
      comment: 'the data plane (gateway/src/proxy) never imports the control plane (gateway/src/control, gateway/src/api).',
      severity: 'error',
      from: { path: '^gateway/src/proxy/' },
      to: { path: '^gateway/src/(control|api)/' },
    },
    {
      name: 'control-never-imports-proxy',
      comment: 'the control plane (gateway/src/control, gateway/src/api) never imports the data plane (gateway/src/proxy).',
      severity: 'error',
      from: { path: '^gateway/src/(control|api)/' },
      to: { path: '^gateway/src/proxy/' },
    },
    {
      name: 'migrations-import-only-kysely',
      comment: 'migrations are frozen in time: they import kysely and each other, never application code.',
      severity: 'error',
      from: { path: '^migrations/' },
      to: { pathNot: ['^migrations/', '^node_modules/kysely/'] },
    },
    {
      name: 'console-imports-only-core',
      comment: 'the console is a browser app: of the workspace it imports only core.',
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(store|worker|gateway|migrations|e2e|bench)/' },
    },
    {
      name: 'console-runs-in-the-browser',
      comment: 'console code (not its tests) imports no Node built-in.',
      severity: 'error',
      from: { path: '^console/src/', pathNot: '\\.test\\.tsx?$|^console/src/testing/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'site-loads-the-dashboard-at-run-time',
      comment: "the public site reaches the dashboard's components only through the remote bundle (site/remote), never by import; the screen table (dashboard/screens.ts) is the one shared file, and the remote's type the one type.",
      severity: 'error',
      from: { path: '^console/src/site/' },
      to: { path: '^console/src/dashboard/', pathNot: '^console/src/dashboard/screens\\.ts$', dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'tests-are-leaves',
      comment: 'no module imports a test file.',
      severity: 'error',
      from: {},
      to: { path: '\\.test\\.tsx?$' },
    },
    {
      name: 'only-tests-reach-e2e-and-bench',
      comment: 'the end-to-end suite and the benchmark are leaves: the product never imports them.',
      severity: 'error',
      from: { path: '^(core|store|worker|gateway|console|migrations)/' },
      to: { path: '^(e2e|bench)/' },
    },
    {
      name: 'no-cycles',
      comment: 'no import cycles through code that runs: each layer reads top to bottom (types may refer back).',
      severity: 'error',
      from: { path: APP },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only', 'type-import'] } },
    },
    {
      name: 'resolvable',
      comment: "every import resolves to a file or an installed package; 'dashboard/screens' is the dashboard bundle, resolved by module federation at run time.",
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^dashboard/screens$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mjs', '.js', '.cjs', '.json', '.d.ts'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};

// Line icons (24×24, stroke) used across the site and dashboard.
const PATHS = {
  chart: 'M4 19V5m0 14h16M8 15v-4m4 4V8m4 7v-6',
  layers: 'M12 3l9 5-9 5-9-5 9-5zm-9 9l9 5 9-5M3 16l9 5 9-5',
  models: 'M12 3v4m0 10v4M3 12h4m10 0h4M6 6l2.5 2.5m7 7L18 18M6 18l2.5-2.5m7-7L18 6M12 9a3 3 0 100 6 3 3 0 000-6z',
  bulb: 'M9 18h6m-5 3h4M12 3a6 6 0 00-3.5 10.9c.6.5 1 1.2 1 2.1h5c0-.9.4-1.6 1-2.1A6 6 0 0012 3z',
  route: 'M6 19a2 2 0 100-4 2 2 0 000 4zm12-10a2 2 0 100-4 2 2 0 000 4zM8 17h6a3 3 0 003-3V9',
  key: 'M15 7a4 4 0 11-3.9 4.9L4 19v2h3l1-1v-2h2l1.2-1.2A4 4 0 0115 7zm1.5 2.5h.01',
  server: 'M4 5h16v6H4zM4 13h16v6H4zM8 8h.01M8 16h.01',
  bell: 'M15 17h5l-1.4-1.4A2 2 0 0118 14.2V11a6 6 0 10-12 0v3.2c0 .5-.2 1-.6 1.4L4 17h5m6 0a3 3 0 01-6 0',
  trend: 'M3 17l6-6 4 4 8-8m0 0h-5m5 0v5',
  shield: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6l8-3z',
  eye: 'M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12zm10-3a3 3 0 100 6 3 3 0 000-6z',
  gauge: 'M12 14l4-4M4 18a9 9 0 1116 0',
  user: 'M20 21v-1a5 5 0 00-5-5H9a5 5 0 00-5 5v1M12 11a4 4 0 100-8 4 4 0 000 8z',
  users: 'M16 19v-1a4 4 0 00-4-4H7a4 4 0 00-4 4v1m17 0v-1a4 4 0 00-3-3.9M13 3.1a4 4 0 010 7.8M9.5 10a3.5 3.5 0 100-7 3.5 3.5 0 000 7z',
  check: 'M5 12l5 5L20 7',
  play: 'M8 5v14l11-7z',
  mail: 'M4 6h16v12H4zm0 0l8 7 8-7',
  spark: 'M12 3l1.8 5.2L19 10l-5.2 1.8L12 17l-1.8-5.2L5 10l5.2-1.8z',
  scale: 'M12 3v18M5 7h14M5 7l-3 6a3 3 0 006 0L5 7zm14 0l-3 6a3 3 0 006 0l-3-6z',
  dna: 'M7 3c0 6 10 6 10 12M17 3c0 6-10 6-10 12m0 6c0-2 1-3.5 2.5-4.5M17 21c0-2-1-3.5-2.5-4.5M8 7h8M8 11h8',
  building: 'M4 21V5l8-3 8 3v16M9 21v-4h6v4M8 8h.01M12 8h.01M16 8h.01M8 12h.01M12 12h.01M16 12h.01',
  plug: 'M9 3v5m6-5v5M6 8h12v3a6 6 0 01-12 0V8zm6 9v4',
  rocket: 'M5 15c-1.5 1-2 4-2 6 2 0 5-.5 6-2m-1-4l-3-3c1-4 5-9 12-9 0 7-5 11-9 12zm3-6a1.5 1.5 0 100-3 1.5 1.5 0 000 3z',
  menu: 'M4 6h16M4 12h16M4 18h16',
  close: 'M6 6l12 12M18 6L6 18',
  settings: 'M12 15a3 3 0 100-6 3 3 0 000 6zm7.4-3a7.4 7.4 0 00-.1-1.2l2-1.6-2-3.4-2.4 1a7 7 0 00-2-1.2L14.5 3h-4l-.4 2.6a7 7 0 00-2 1.2l-2.4-1-2 3.4 2 1.6a7.4 7.4 0 000 2.4l-2 1.6 2 3.4 2.4-1a7 7 0 002 1.2l.4 2.6h4l.4-2.6a7 7 0 002-1.2l2.4 1 2-3.4-2-1.6c.1-.4.1-.8.1-1.2z',
  card: 'M3 6h18v12H3zM3 10h18M7 15h3',
  plus: 'M12 5v14M5 12h14',
  logout: 'M15 17l5-5-5-5m5 5H9m4 9H5a2 2 0 01-2-2V5a2 2 0 012-2h8',
  sun: 'M12 17a5 5 0 100-10 5 5 0 000 10zm0-15v2m0 16v2M4.2 4.2l1.4 1.4m12.8 12.8l1.4 1.4M2 12h2m16 0h2M4.2 19.8l1.4-1.4M18.4 5.6l1.4-1.4',
  moon: 'M21 12.8A9 9 0 1111.2 3a7 7 0 009.8 9.8z',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 24, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      className={className}
    >
      <path d={PATHS[name]} />
    </svg>
  );
}

// Placeholder landing page shown until the real console is built.
export function LandingPage() {
  return (
    <main className="landing">
      <h1>Spendgate</h1>
      <p className="tagline">Work at the Frontier of AI — with control.</p>
      <p>The console is being built.</p>
      <p>
        <a href="/healthz">Gateway health</a>
      </p>
    </main>
  );
}

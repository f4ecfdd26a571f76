/**
 * Which team a screen shows, for someone in more than one: a labelled select whose
 * choice the screen keeps in its URL (`?team=`). Renders nothing for a single team.
 *
 * @example
 *   <TeamPicker teams={teams.data} teamId={team.id} onPick={(id) => navigate({ to: '.', search: { team: id } })} />
 */
export function TeamPicker({ teams, teamId, onPick }: { teams: readonly { id: string; name: string }[] | undefined; teamId: string | undefined; onPick: (teamId: string) => void }) {
  if (!teams || teams.length < 2 || teamId === undefined) return null;
  return (
    <label className="team-picker">
      Team
      <select value={teamId} onChange={(event) => onPick(event.target.value)}>
        {teams.map((candidate) => (
          <option key={candidate.id} value={candidate.id}>
            {candidate.name}
          </option>
        ))}
      </select>
    </label>
  );
}

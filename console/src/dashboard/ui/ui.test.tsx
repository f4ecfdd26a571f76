// @vitest-environment happy-dom
// The shared dashboard pieces as a person meets them: the error state's Retry, the
// confirmation dialog's focus, Escape and buttons, the copy field's announcement, the
// progress bar's amounts, the team picker's choice.
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Badge } from './Badge.tsx';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { CopyField } from './CopyField.tsx';
import { ProgressBar } from './ProgressBar.tsx';
import { ErrorState, LoadingState } from './States.tsx';
import { TeamPicker } from './TeamPicker.tsx';

afterEach(cleanup);

describe('LoadingState and ErrorState', () => {
  it('announces loading with its label', () => {
    render(<LoadingState label="Loading connections…" />);
    expect(screen.getByRole('status').textContent).toContain('Loading connections…');
  });

  it("shows the failure's message and retries on Retry", async () => {
    const retry = vi.fn();
    render(<ErrorState error={new Error('Failed to fetch connections')} onRetry={retry} />);
    expect(screen.getByRole('alert').textContent).toContain('Failed to fetch connections');
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(retry).toHaveBeenCalledTimes(1);
  });

  it('waits while retrying', () => {
    render(<ErrorState error={new Error('x')} onRetry={() => {}} retrying />);
    expect((screen.getByRole('button', { name: 'Retrying…' }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('Badge', () => {
  it('is the one badge class, in its tone (neutral unless told)', () => {
    render(
      <p>
        <Badge>Estimated</Badge>
        <Badge tone="danger">Due</Badge>
      </p>,
    );
    expect(screen.getByText('Estimated').className).toBe('badge badge--neutral');
    expect(screen.getByText('Due').className).toBe('badge badge--danger');
  });
});

function DeleteWithConfirmation({ onConfirm }: { onConfirm: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Delete connection
      </button>
      <a href="#elsewhere">Elsewhere</a>
      {open && (
        <ConfirmDialog title="Delete this connection?" confirmLabel="Delete" destructive onConfirm={onConfirm} onCancel={() => setOpen(false)}>
          Keys using it stop working.
        </ConfirmDialog>
      )}
    </>
  );
}

describe('ConfirmDialog', () => {
  it('is a labelled modal dialog that takes focus and gives it back on Escape', async () => {
    const user = userEvent.setup();
    render(<DeleteWithConfirmation onConfirm={() => {}} />);
    const opener = screen.getByRole('button', { name: 'Delete connection' });
    await user.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Delete this connection?' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('keeps Tab inside the dialog', async () => {
    const user = userEvent.setup();
    render(<DeleteWithConfirmation onConfirm={() => {}} />);
    await user.click(screen.getByRole('button', { name: 'Delete connection' }));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete' }));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete' }));
  });

  it('confirms with the confirm button and shows the failure it is given', async () => {
    const confirm = vi.fn();
    render(<ConfirmDialog title="Revoke key?" confirmLabel="Revoke key" error="Key not found" onConfirm={confirm} onCancel={() => {}} />);
    expect(screen.getByRole('alert').textContent).toBe('Key not found');
    await userEvent.click(screen.getByRole('button', { name: 'Revoke key' }));
    expect(confirm).toHaveBeenCalledTimes(1);
  });

  it('cannot be cancelled while the action runs', async () => {
    const cancel = vi.fn();
    render(<ConfirmDialog title="Revoke key?" confirmLabel="Revoke key" busy onConfirm={() => {}} onCancel={cancel} />);
    expect((screen.getByRole('button', { name: 'Revoke key' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.keyboard('{Escape}');
    expect(cancel).not.toHaveBeenCalled();
  });
});

describe('CopyField', () => {
  it('copies its value and announces "Copied"', async () => {
    const user = userEvent.setup();
    render(<CopyField label="Your new key" value="sg_live_abc123" />);
    expect((screen.getByLabelText('Your new key') as HTMLInputElement).value).toBe('sg_live_abc123');
    expect((screen.getByLabelText('Your new key') as HTMLInputElement).readOnly).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Copy Your new key' }));
    expect(await navigator.clipboard.readText()).toBe('sg_live_abc123');
    expect(screen.getByRole('status').textContent).toBe('Copied');
  });

  it('says how to copy by hand when the clipboard refuses', async () => {
    const user = userEvent.setup();
    render(<CopyField label="Snippet" value={'line one\nline two'} multiline />);
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValueOnce(new DOMException('denied', 'NotAllowedError'));
    await user.click(screen.getByRole('button', { name: 'Copy Snippet' }));
    expect(screen.getByRole('status').textContent).toContain('Could not copy');
    expect(screen.getByLabelText('Snippet').tagName).toBe('TEXTAREA');
  });
});

describe('ProgressBar', () => {
  it('reports spent and reserved against the cap', () => {
    render(<ProgressBar label="Team budget" spentMicros={4_200_000n} reservedMicros={300_000n} capMicros={10_000_000n} currency="GBP" />);
    const bar = screen.getByRole('progressbar', { name: 'Team budget' });
    expect(bar.getAttribute('aria-valuenow')).toBe('45');
    expect(bar.getAttribute('aria-valuetext')).toBe('45%: £4.20 spent, £0.30 reserved of £10.00');
  });

  it('is full, not beyond, when spend passes the cap', () => {
    render(<ProgressBar label="Key budget" spentMicros={12_000_000n} capMicros={10_000_000n} currency="USD" />);
    const bar = screen.getByRole('progressbar', { name: 'Key budget' });
    expect(bar.getAttribute('aria-valuenow')).toBe('100');
    expect(bar.getAttribute('aria-valuetext')).toBe('100%: $12.00 spent of $10.00');
  });
});

describe('TeamPicker', () => {
  const teams = [
    { id: 't1', name: 'Research' },
    { id: 't2', name: 'Support' },
  ];

  it('is not shown to someone in one team', () => {
    const { container } = render(<TeamPicker teams={teams.slice(0, 1)} teamId="t1" onPick={vi.fn()} />);
    expect(container.innerHTML).toBe('');
  });

  it('shows the current team and hands over the one picked', async () => {
    const pick = vi.fn();
    render(<TeamPicker teams={teams} teamId="t1" onPick={pick} />);
    const select = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Team' });
    expect(select.value).toBe('t1');
    await userEvent.selectOptions(select, 'Support');
    expect(pick).toHaveBeenCalledWith('t2');
  });
});

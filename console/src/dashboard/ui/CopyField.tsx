/**
 * A value to copy (a key shown once, a snippet, a URL): read-only, selectable, with a
 * Copy button. A multi-line value (code) keeps its lines: as tall as they are, scrolled
 * sideways when wider than the screen. The result is announced to screen readers: "Copied", or how to copy by
 * hand when the clipboard is not available.
 *
 * @example <CopyField label="Your new key" value={issued.key} />
 */
import { useEffect, useId, useRef, useState } from 'react';

type CopyResult = 'idle' | 'copied' | 'failed';

export function CopyField({ label, value, multiline = false }: { label: string; value: string; multiline?: boolean }) {
  const id = useId();
  const [result, setResult] = useState<CopyResult>('idle');
  const field = useRef<HTMLInputElement & HTMLTextAreaElement>(null);

  useEffect(() => {
    if (result === 'idle') return;
    const timer = setTimeout(() => setResult('idle'), 4000);
    return () => clearTimeout(timer);
  }, [result]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setResult('copied');
    } catch {
      field.current?.select();
      setResult('failed');
    }
  }

  const shared = { id, ref: field, className: 'copy-field__value', value, readOnly: true, spellCheck: false, onFocus: () => field.current?.select() };
  return (
    <div className="copy-field">
      <label htmlFor={id} className="copy-field__label">
        {label}
      </label>
      <div className="copy-field__row">
        {multiline ? <textarea {...shared} rows={value.split('\n').length} wrap="off" /> : <input {...shared} type="text" />}
        <button type="button" className="button button--ghost button--small" onClick={copy} aria-label={`Copy ${label}`}>
          {result === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="copy-field__status" role="status">
        {result === 'copied' ? 'Copied' : result === 'failed' ? 'Could not copy: the text is selected, press Ctrl+C or ⌘C.' : ''}
      </p>
    </div>
  );
}

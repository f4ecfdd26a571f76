/**
 * The demo video's timeline: where each chapter starts once recorded, and from that the
 * captions (WebVTT, one cue per narrated sentence) and the chapter marks (FFmetadata)
 * the encoder embeds. Pure, so the timings can be checked without a browser.
 */

export interface RecordedChapter {
  title: string;
  /** What the narrator says, sentence by sentence. */
  sentences: string[];
  /** When the chapter starts in the recording, and how long its narration lasts. */
  startMs: number;
  narrationMs: number;
  /** When the next chapter (or the video) starts: the chapter mark runs until then. */
  endMs: number;
}

/** 83_456 → "00:01:23.456" (WebVTT's timestamp). */
export function vttTime(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor(whole / 60_000) % 60;
  const seconds = Math.floor(whole / 1_000) % 60;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}.${pad(whole % 1_000, 3)}`;
}

/**
 * One cue per sentence, each lasting its share of the chapter's narration by length in
 * characters (the speech synthesiser's pace is even), back to back from the chapter's start.
 */
export function captionsVtt(chapters: RecordedChapter[]): string {
  const cues: string[] = [];
  for (const chapter of chapters) {
    const characters = chapter.sentences.reduce((sum, sentence) => sum + sentence.length, 0);
    let at = chapter.startMs;
    for (const sentence of chapter.sentences) {
      const length = (chapter.narrationMs * sentence.length) / characters;
      cues.push(`${vttTime(at)} --> ${vttTime(at + length)}\n${sentence}`);
      at += length;
    }
  }
  return `WEBVTT\n\n${cues.join('\n\n')}\n`;
}

/** FFmetadata chapters (millisecond time base), one per chapter, as MP4 players list them. */
export function chapterMetadata(chapters: RecordedChapter[], title: string): string {
  const escaped = (text: string) => text.replace(/[=;#\\\n]/g, (character) => `\\${character}`);
  const marks = chapters.map(
    (chapter) => `[CHAPTER]\nTIMEBASE=1/1000\nSTART=${Math.round(chapter.startMs)}\nEND=${Math.round(chapter.endMs)}\ntitle=${escaped(chapter.title)}`,
  );
  return `;FFMETADATA1\ntitle=${escaped(title)}\n\n${marks.join('\n\n')}\n`;
}

import { describe, expect, it } from 'vitest';
import { captionsVtt, chapterMetadata, type RecordedChapter, vttTime } from './timeline.ts';

const chapters: RecordedChapter[] = [
  { title: 'Usage Visibility', sentences: ['Spend by model.', 'And by key, too.'], startMs: 0, narrationMs: 3_100, endMs: 4_000 },
  { title: 'Cost; Control', sentences: ['Budgets stop overruns.'], startMs: 4_000, narrationMs: 2_000, endMs: 7_250 },
];

describe('the demo video timeline', () => {
  it('writes WebVTT timestamps', () => {
    expect(vttTime(0)).toBe('00:00:00.000');
    expect(vttTime(83_456)).toBe('00:01:23.456');
    expect(vttTime(3_723_004)).toBe('01:02:03.004');
  });

  it('gives each sentence its share of the narration by length, from the chapter start', () => {
    // 15 and 16 characters share 3,100 ms: 1,500 ms and 1,600 ms.
    expect(captionsVtt(chapters)).toBe(
      'WEBVTT\n\n' +
        '00:00:00.000 --> 00:00:01.500\nSpend by model.\n\n' +
        '00:00:01.500 --> 00:00:03.100\nAnd by key, too.\n\n' +
        '00:00:04.000 --> 00:00:06.000\nBudgets stop overruns.\n',
    );
  });

  it('marks each chapter from its start to the next, escaping FFmetadata specials', () => {
    expect(chapterMetadata(chapters, 'Spendgate = demo')).toBe(
      ';FFMETADATA1\ntitle=Spendgate \\= demo\n\n' +
        '[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=4000\ntitle=Usage Visibility\n\n' +
        '[CHAPTER]\nTIMEBASE=1/1000\nSTART=4000\nEND=7250\ntitle=Cost\\; Control\n',
    );
  });
});

// How an FAQ answer is shown: an answer with bullet characters becomes an intro line
// followed by a list of the bulleted points.

export const FAQ_SECTION_LIMIT = 4;

const BULLET = /[•●▪◦]/;

export interface FaqAnswerParts {
  intro: string;
  bullets: string[];
}

/**
 * @example
 *   splitBulletAnswer('Three roles: • Admin • Maintainer • Observer')
 *   // { intro: 'Three roles:', bullets: ['Admin', 'Maintainer', 'Observer'] }
 */
export function splitBulletAnswer(answer: string): FaqAnswerParts {
  if (!BULLET.test(answer)) return { intro: answer.trim(), bullets: [] };
  const [intro = '', ...points] = answer.split(BULLET);
  return { intro: intro.trim(), bullets: points.map((point) => point.trim()).filter((point) => point.length > 0) };
}

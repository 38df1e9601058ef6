// An integer scale written as a range (`1-5`, `1..5`, `1–5`): a survey question's points, read the same way by
// a scenario's survey and by `dramaturg validate`.

const SCALE_RANGE = /^\s*(-?\d+)\s*(?:-|–|\.\.)\s*(-?\d+)\s*$/;

/** `1-5` (or `1..5`, `1–5`) → [1, 2, 3, 4, 5]; undefined when the text is not such a range. */
export function scaleRange(text: string): number[] | undefined {
  const m = SCALE_RANGE.exec(text);
  if (!m) return undefined;
  const [low, high] = [Number(m[1]), Number(m[2])];
  if (!(high > low) || high - low > 1000) return undefined;
  return Array.from({ length: high - low + 1 }, (_, i) => low + i);
}

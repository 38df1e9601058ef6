// τ-bench's pass^k: how reliably repeated runs succeed, for every family that repeats a run (session
// tasks, conversation trials). Shared here so both import it downward.

/** τ-bench's pass^k for one task: the chance that k runs drawn from n (c of them successes) all succeed. */
export function passHatK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`k (${k}) exceeds the runs (${n})`);
  // C(c, k) / C(n, k) as a product, exact enough and free of huge intermediates.
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return Math.max(0, p);
}

/**
 * pass^k for k = 1…n over repeated runs of tasks: the mean over tasks of C(c, k) / C(n, k). Tasks with
 * different run counts are compared up to the smallest.
 */
export function passK(runs: readonly { task_id: string; success: boolean }[]): {
  tasks: number;
  runs_per_task: number;
  pass_k: Record<string, number>;
} {
  const byTask = new Map<string, { n: number; c: number }>();
  for (const r of runs) {
    const t = byTask.get(r.task_id) ?? { n: 0, c: 0 };
    t.n++;
    if (r.success) t.c++;
    byTask.set(r.task_id, t);
  }
  const tasks = [...byTask.values()];
  const n = Math.min(...tasks.map((t) => t.n));
  const pass_k: Record<string, number> = {};
  for (let k = 1; k <= n; k++)
    pass_k[String(k)] = tasks.reduce((sum, t) => sum + passHatK(t.n, t.c, k), 0) / tasks.length;
  return { tasks: tasks.length, runs_per_task: n, pass_k };
}

/**
 * Runs `job` now and then every `intervalMs` on a timer that does not keep the
 * process alive; a failing run is reported and the next one still happens.
 * Returns the function that stops it.
 */
export function startPeriodic(job: () => void, intervalMs: number, onError: (err: unknown) => void): () => void {
  const run = () => {
    try {
      job();
    } catch (err) {
      onError(err);
    }
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

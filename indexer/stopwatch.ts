/** Named lap times in whole milliseconds, for the stage figures builds and loads report. */
export function stopwatch(): { lap: (name: string) => void; timings: Record<string, number> } {
  const timings: Record<string, number> = {}
  let t0 = performance.now()
  return {
    timings,
    lap(name) {
      const t = performance.now()
      timings[name] = Math.round(t - t0)
      t0 = t
    }
  }
}

--- Interconnect utilization: traffic between the CPUs and memory. Estimated from the
-- last-level cache misses (each miss moves one 64-byte line from memory; writebacks and
-- prefetches are not counted, so it is a lower bound). Utilization needs the
-- platform's peak memory bandwidth, which no counter gives: pass it with
-- --set use.interconnect-utilization.peak_mb_s=N (e.g. from the memory's spec or a
-- STREAM run), else the utilization cell stays a known unknown.
local fmt = require("fmt")

local LINE = 64

return {
  id = "use.interconnect-utilization",
  title = "Interconnect (memory bus) utilization",
  methodology = "use", resource = "interconnect", metric = "utilization",
  tags = { "default" },
  collect = { "perf.counters" },
  args = {
    peak_mb_s = { type = "number", default = 0, help = "peak memory bandwidth of this host in MB/s (0: unknown)" },
    warn_pct = { type = "number", default = 70, help = "share of the peak bandwidth that warns" },
    crit_pct = { type = "number", default = 90, help = "share of the peak bandwidth that is critical" },
  },

  run = function(ctx, args)
    local c, why = ctx.perf.counter("llc-misses")
    if not c then
      ctx:unknown("memory_utilization_pct", "memory traffic needs last-level cache miss "
        .. "counters (or the memory controller's uncore PMU): " .. why)
      return
    end
    local _, info = ctx.perf.counters()
    local secs = (info.counted_to_s or 0) - (info.counted_from_s or 0)
    if secs <= 0 then
      ctx:unknown("memory_utilization_pct", "no counting time in the window")
      return
    end
    local mb_s = c.scaled * LINE / secs / 1e6
    ctx:note(string.format("LLC misses moved at least %s/s from memory (%s misses x %d bytes over %.2f s)",
      fmt.bytes(mb_s * 1e6), fmt.num(math.floor(c.scaled)), LINE, secs))
    if args.peak_mb_s > 0 then
      ctx:metric("memory_read_mb_s", mb_s, { unit = "MB/s", agg = "mean" })
      ctx:metric("memory_utilization_pct", 100 * mb_s / args.peak_mb_s,
        { unit = "%", warn = args.warn_pct, crit = args.crit_pct, agg = "mean" })
    else
      -- Without the peak a traffic figure alone would paint the cell "ok": keep it unknown.
      ctx:unknown("memory_utilization_pct", string.format("memory traffic is %.0f MB/s (from LLC misses) but the "
        .. "peak bandwidth of this host is not known: set use.interconnect-utilization.peak_mb_s", mb_s))
    end
  end,
}

--- Pressure stall information (PSI): the % of the time some (or every) task stalled on a
-- resource, from the kernel's stall counters in microseconds (some_total, full_total).
local psi = {}

--- % of seconds that stall_us microseconds of stall are.
function psi.pct(stall_us, seconds)
  return 100 * stall_us / 1e6 / seconds
end

--- The window's % for a series of ctx.proc.pressure(resource); nil when the series is
-- missing, spans no time (fewer than two samples) or lacks the field.
function psi.window_pct(series, field)
  if not series or series:seconds() <= 0 then return nil end
  local d = series:delta(field)
  return d and psi.pct(d, series:seconds())
end

--- The same % per interval of the series (its rates, in us/s), for a metric's `over`.
function psi.interval_pcts(series, field)
  local per = {}
  for i, r in ipairs(series:rates(field)) do per[i] = r / 1e4 end -- us/s -> %
  return per
end

--- The % between the first and the last sample { t = s, [field] = us } of a cgroup's pressure
-- (cg.pressure.memory); nil without two samples apart in time or without the field.
function psi.span_pct(p, field)
  if not (p and p.first and p.last and p.first[field] and p.last.t > p.first.t) then return nil end
  return psi.pct(p.last[field] - p.first[field], p.last.t - p.first.t)
end

return psi

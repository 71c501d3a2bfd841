--- Formatting helpers for summaries and evidence tables: the report's own
-- formatter (the sandbox's `units`, util/units.c), so that a sentence reads
-- "21.6k/s" and "440 KiB" as the tables around it do: three significant
-- digits, never an exponent.
local fmt = {}

--- "1 CPU", "2 CPUs": a count and its noun, singular for one.
function fmt.count(n, noun, plural)
  if n == 1 then return "1 " .. noun end
  return string.format("%d %s", n, plural or (noun .. "s"))
end

--- "65.6%", "0.168%"
function fmt.pct(x)
  if x == nil then return "?" end
  return units.value(x, "%")
end

--- "512 B", "1.5 GiB"
function fmt.bytes(n)
  if n == nil then return "?" end
  return units.value(n, "bytes")
end

--- "4.5 execs/s", "21.6k/s" (no unit)
function fmt.rate(n, unit)
  if n == nil then return "?" end
  if unit == nil or unit == "" then return units.value(n, "/s") end
  return units.value(n, unit .. "/s")
end

--- A count or a limit exactly ("1048576": a person compares it with a setting);
-- any other number with three significant digits ("0.0028", "21.6k").
function fmt.num(n)
  if n == nil then return "?" end
  if math.type(n) == "integer" or n == math.floor(n) and math.abs(n) < 1e15 then
    return string.format("%d", math.floor(n))
  end
  return units.num(n)
end

--- Microseconds as milliseconds in a table cell, "1.25"; "-" for nil.
function fmt.ms(us)
  return us and string.format("%.2f", us / 1000) or "-"
end

--- "comm (pid N)"
function fmt.task(t)
  return string.format("%s (pid %d)", t.comm, t.pid)
end

return fmt

--- Failed syscalls from the syscount BPF tool (ctx.bpf.syscount()): the walks
-- the error checks share. `match(e)` picks the failures a check is about.
local fmt = require("fmt")
local syscount = {}

--- Failures counted per syscall (exact totals): sum of e.count over d.errors_by_syscall.
function syscount.total(d, match)
  local total = 0
  for _, e in ipairs(d.errors_by_syscall or {}) do
    if match(e) then total = total + e.count end
  end
  return total
end

--- Failures per process: the processes (summed by pid, or by comm with
-- by_comm, most first) and the first `top` rows { pid, process, syscall,
-- error, failures } for a table, from d.process_errors.
function syscount.by_process(d, match, top, by_comm)
  local per, order, rows = {}, {}, {}
  for _, e in ipairs(d.process_errors or {}) do
    if match(e) then
      local key = by_comm and e.comm or e.pid
      if not per[key] then
        per[key] = { pid = e.pid, comm = e.comm, count = 0 }
        order[#order + 1] = per[key]
      end
      per[key].count = per[key].count + e.count
      if #rows < top then
        rows[#rows + 1] = { e.pid, e.comm, e.name or ("#" .. tostring(e.id)),
                            e.errno_name or tostring(e.errno), fmt.num(e.count) }
      end
    end
  end
  table.sort(order, function(a, b) return a.count > b.count end)
  return order, rows
end

syscount.columns = { "pid", "process", "syscall", "error", "failures" }

--- The syscall rate as two metrics (a second, and a second per CPU, which warns
-- at warn_per_cpu); true when the runner judged it warn or crit.
function syscount.rate(ctx, rate, ncpu, warn_per_cpu)
  ctx:metric("syscalls_per_s", rate, { unit = "/s", agg = "mean" })
  return ctx:metric("syscalls_per_s_per_cpu", rate / ncpu, { unit = "/s", warn = warn_per_cpu, agg = "mean" }) ~= "ok"
end

--- The note every reader of syscount's error lists owes: full maps undercount.
function syscount.drops_note(ctx, info)
  if info and (info.drops or 0) > 0 then
    ctx:note(string.format("syscount lost %d map entries (full maps): failures may be undercounted", info.drops))
  end
end

return syscount

--- Helpers over ctx.proc.tasks(): ranking processes and naming culprits.
local tasks = {}

--- The n tasks with the largest key(t) > 0, largest first. sonde itself
-- (the observer, t.self) is never ranked: its cost is in the report's appendix.
function tasks.top(list, key, n)
  local picked = {}
  for _, t in ipairs(list) do
    local v = not t.self and key(t)
    if v and v > 0 then picked[#picked + 1] = { task = t, value = v } end
  end
  table.sort(picked, function(a, b)
    if a.value ~= b.value then return a.value > b.value end
    return a.task.pid < b.task.pid
  end)
  local out = {}
  for i = 1, math.min(n, #picked) do out[i] = picked[i] end
  return out
end

--- CPU seconds a task used in the window.
function tasks.cpu_seconds(t, hz)
  return (t.utime + t.stime) / hz
end

--- Name the top entries as culprits: share is each one's part of total.
function tasks.blame(ctx, top, total, max)
  for i = 1, math.min(max or 3, #top) do
    local e = top[i]
    ctx:culprit { pid = e.task.pid, comm = e.task.comm, cmdline = e.task.cmdline,
                  share = total > 0 and e.value / total or 0, kernel_thread = e.task.kernel_thread }
  end
end

return tasks

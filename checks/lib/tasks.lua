--- Helpers over ctx.proc.tasks(): ranking processes and naming culprits.
local tasks = {}

--- The first n items of list in the order before(a, b) sorts them (a strict order), in one
-- pass: O(#list * n) instead of sorting all (a host may run 10,000 processes, and a check
-- wants the top five). The rest of list is never compared with itself.
-- Put e in its place among out's first n (the caller knows it belongs there): the last
-- one drops off when out is full.
local function place(out, n, e, before)
  local i = #out < n and #out + 1 or n
  while i > 1 and before(e, out[i - 1]) do
    out[i] = out[i - 1]
    i = i - 1
  end
  out[i] = e
end

function tasks.best(list, n, before)
  local out = {}
  if n <= 0 then return out end
  for _, e in ipairs(list) do
    local last = out[n]
    if not last or before(e, last) then place(out, n, e, before) end
  end
  return out
end

local function by_value_then_pid(a, b)
  if a.value ~= b.value then return a.value > b.value end
  return a.task.pid < b.task.pid
end

--- A ranking built as tasks are offered one at a time: offer(t, v) keeps t when v is among
-- the n largest so far (ties: lower pid first); out is the ranking so far, entries
-- { task = t, value = v }, largest first. An entry is made only for a task that enters it:
-- a walk over 10,000 processes allocates for a few dozen, not for every one.
function tasks.ranker(n)
  local out = {}
  local function offer(t, v)
    if n <= 0 then return end
    local last = out[n]
    if last and not (v > last.value or (v == last.value and t.pid < last.task.pid)) then return end
    place(out, n, { task = t, value = v }, by_value_then_pid)
  end
  return offer, out
end

--- The n tasks with the largest value(t), largest first (ties: lower pid first), as
-- entries { task = t, value = v }; a task whose value is nil is not ranked.
function tasks.rank(list, n, value)
  local offer, out = tasks.ranker(n)
  for _, t in ipairs(list) do
    local v = value(t)
    if v then offer(t, v) end
  end
  return out
end

--- The n tasks with the largest key(t) > 0, largest first (ties: lower pid first). sonde
-- itself (the observer, t.self) is never ranked: its cost is in the report's appendix.
function tasks.top(list, key, n)
  local offer, out = tasks.ranker(n)
  for _, t in ipairs(list) do
    local v = not t.self and key(t)
    if v and v > 0 then offer(t, v) end
  end
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

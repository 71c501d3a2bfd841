--- Why the CPUs are busy: on-CPU stack samples (BPF profile), the functions and stacks that use them.
local fmt = require("fmt")
local tasks = require("tasks")

-- frames of a folded stack "comm;f1;f2;...;leaf": the comm, then the frames
local function split(folded)
  local parts = {}
  for f in string.gmatch(folded, "[^;]+") do parts[#parts + 1] = f end
  local comm = table.remove(parts, 1)
  return comm, parts
end

-- the last n frames of a stack, leaf last, for a table cell
local function tail(frames, n)
  local from = math.max(#frames - n + 1, 1)
  local out = {}
  for i = from, #frames do out[#out + 1] = frames[i] end
  local s = table.concat(out, " < ")
  if from > 1 then s = "... " .. s end
  return s
end

-- The subsecond map asked for (args.subsecond) as busy % of the samples of each
-- cell (49 Hz puts 2 or 3 samples in a 50 ms row, the same rows every second:
-- raw counts would stripe): the map and what it covers, or nil and why.
local function subsecond_of(d, which)
  local ss = d.subsecond
  if not ss then
    -- a bundle from before they were kept: nothing to draw, nothing to say unless asked
    return nil, which ~= "all" and "the capture has no subsecond counts (a bundle from an older sonde)" or nil
  end
  -- the last column is a partial second (the window ended in it): left out below half the others
  local ncols, most = #(ss.samples or {}), 0
  for _, col in ipairs(ss.samples or {}) do
    local n = 0
    for _, x in ipairs(col) do n = n + x end
    most = math.max(most, n)
  end
  local last = 0
  for _, x in ipairs((ss.samples or {})[ncols] or {}) do last = last + x end
  if ncols > 1 and last < most / 2 then ncols = ncols - 1 end
  local function with(busy, samples, what)
    local pct = {}
    for c = 1, ncols do
      local col = (samples or {})[c] or {}
      local row = {}
      for r, n in ipairs(col) do
        local b = (busy[c] or {})[r] or 0
        row[r] = n > 0 and math.floor(100 * math.min(b, n) / n + 0.5) or 0
      end
      pct[c] = row
    end
    return { interval_ms = ss.interval_ms, row_ms = ss.row_ms, unit = "%", counts = pct }, what
  end
  if which == "all" then return with(ss.counts, ss.samples, "every CPU") end
  local kind, n = string.match(which, "^(%a+):(%d+)$")
  n = tonumber(n)
  if kind == "cpu" then
    for _, c in ipairs(ss.cpus or {}) do
      if c.cpu == n then return with(c.counts, c.samples, "CPU " .. n) end
    end
    return nil, string.format("CPU %d took no sample in the window", n)
  elseif kind == "pid" then
    for _, p in ipairs(ss.processes or {}) do
      if p.tgid == n then
        local comm = "?"
        for _, q in ipairs(d.processes or {}) do
          if q.tgid == n then comm = q.comm break end
        end
        return with(p.counts, ss.samples, string.format("%s (pid %d)", comm, n))
      end
    end
    return nil, string.format("pid %d is not among the %d busiest processes of the subsecond counts", n, #(ss.processes or {}))
  end
  error(string.format("subsecond = %q: expected all, cpu:N, pid:N or none", which), 0)
end

local function top_of(map, n)
  local list = {}
  for name, v in pairs(map) do list[#list + 1] = { name = name, value = v } end
  return tasks.best(list, n, function(a, b) if a.value ~= b.value then return a.value > b.value end return a.name < b.name end)
end

return {
  id = "workload.cpu-why",
  title = "Why: where the CPU time goes (on-CPU profile)",
  methodology = "workload", resource = "cpu", metric = "why",
  tags = { "default", "tracing" },
  collect = { "bpf.profile" },
  args = {
    top = { type = "number", default = 15, help = "functions listed" },
    top_procs = { type = "number", default = 3, help = "processes whose top stacks are listed" },
    stacks_per_proc = { type = "number", default = 3, help = "stacks listed per process" },
    subsecond = { type = "string", default = "all",
                  help = "the subsecond-offset heat map of busy samples: all (every CPU together), cpu:N, pid:N (one of the ten busiest processes), or none" },
  },

  run = function(ctx, args)
    local d, why = ctx.bpf.profile()
    if not d then
      ctx:unknown("top_functions", why)
      return
    end
    local total = d.total or 0
    ctx:metric("samples", d.samples or 0, { unit = "samples", agg = "total", help = "profile samples taken (sonde's own)" })
    ctx:metric("busy_samples", total, { unit = "samples", agg = "total" })
    ctx:metric("lost_samples", d.lost_samples or 0, { unit = "samples", agg = "total" })
    if d.kernel_symbols ~= "ok" then ctx:unknown("kernel_frames", d.kernel_symbols) end
    if total == 0 then
      ctx:unknown("top_functions", string.format("no thread was on a CPU at any of the %d samples (%d Hz on %d CPUs): the CPUs were idle",
        d.samples or 0, d.frequency_hz or 0, d.cpus or 0))
      return
    end
    local unknown_pct = d.frames > 0 and 100 * d.unknown_frames / d.frames or 0
    ctx:metric("unknown_frames_pct", unknown_pct, { unit = "%", agg = "mean" })
    local broken_pct = 100 * (d.broken and d.broken.count or 0) / total
    ctx:metric("broken_stacks_pct", broken_pct, { unit = "%", agg = "mean" })

    -- self: the leaf frame; total: every function on the stack, once per stack
    local self, incl = {}, {}
    for _, s in ipairs(d.stacks or {}) do
      local _, frames = split(s.folded)
      if #frames > 0 then
        local leaf = frames[#frames]
        self[leaf] = (self[leaf] or 0) + s.count
        local seen = {}
        for _, f in ipairs(frames) do
          if not seen[f] then
            seen[f] = true
            incl[f] = (incl[f] or 0) + s.count
          end
        end
      end
    end
    local rows = {}
    for _, e in ipairs(top_of(self, args.top)) do
      rows[#rows + 1] = { e.name, e.value, fmt.pct(100 * e.value / total), fmt.pct(100 * (incl[e.name] or 0) / total) }
    end
    ctx:table { traced = why, title = "Top on-CPU functions by self samples (the function was running)",
                columns = { "function", "samples", "self", "total" }, code = { "function" }, rows = rows }
    rows = {}
    for _, e in ipairs(top_of(incl, args.top)) do
      rows[#rows + 1] = { e.name, e.value, fmt.pct(100 * e.value / total), fmt.pct(100 * (self[e.name] or 0) / total) }
    end
    ctx:table { traced = why, title = "Top on-CPU functions by total samples (running, or calling what ran)",
                columns = { "function", "samples", "total", "self" }, code = { "function" }, rows = rows }

    rows = {}
    for i, p in ipairs(d.processes or {}) do
      if i > args.top_procs then break end
      local shown = 0
      for _, s in ipairs(d.stacks or {}) do
        if s.tgid == p.tgid then
          local _, frames = split(s.folded)
          rows[#rows + 1] = { p.tgid, s.comm, s.count, fmt.pct(100 * s.count / total), tail(frames, 6) }
          shown = shown + 1
          if shown >= args.stacks_per_proc then break end
        end
      end
    end
    ctx:table { traced = why, title = "Top stacks of the busiest processes (leaf last)",
                columns = { "pid", "thread", "samples", "of busy", "stack" }, code = { "stack" }, rows = rows }

    -- the whole profile as a flame graph (report.html draws it; report.md lists its hottest frames)
    local folded = {}
    for _, s in ipairs(d.stacks or {}) do folded[#folded + 1] = s.folded .. " " .. math.floor(s.count) end
    if d.other and (d.other.count or 0) > 0 then folded[#folded + 1] = "[other stacks] " .. math.floor(d.other.count) end
    ctx:flamegraph { title = "On-CPU flame graph (profile)", unit = "samples", folded = folded, traced = why }

    -- when in each second the CPUs were busy: periodic work is a horizontal stripe
    if args.subsecond ~= "none" then
      local ss, what = subsecond_of(d, args.subsecond)
      if ss then
        ctx:heatmap("CPU busy by offset in the second, " .. what .. " (profile, % of the samples)", ss, { traced = why })
      elseif what then
        ctx:note("No subsecond-offset heat map: " .. what)
      end
    end

    local top = d.processes and d.processes[1]
    if top then
      ctx:culprit { pid = top.tgid, comm = top.comm, share = top.count / total }
    end
    if d.unknown_frames > 0 then
      local parts = {}
      for k, v in pairs(d.unknown_reasons or {}) do parts[#parts + 1] = string.format("%s %d", k, v) end
      table.sort(parts)
      ctx:note(string.format("%d of %d frames are [unknown] (%s)", d.unknown_frames, d.frames, table.concat(parts, ", ")))
    end
    -- user stacks: which unwinder gave them (frame pointers, or CFI from a stack copy)
    local by_unwinder = {}
    for _, s in ipairs(d.stacks or {}) do
      if s.unwinder then by_unwinder[s.unwinder] = (by_unwinder[s.unwinder] or 0) + s.count end
    end
    if d.cfi then
      ctx:metric("cfi_unwound_pct", 100 * (by_unwinder.cfi or 0) / total, { unit = "%", agg = "mean" })
      if d.cfi.status ~= "on" then ctx:note("CFI unwinding: " .. d.cfi.status) end
      -- samples whose unwinding would have cost more than its budget: by the budget they broke
      local b = d.cfi.budget
      if b and (b.over or 0) > 0 then
        local by = b.over_by or {}
        ctx:note(string.format("%d %s kept %s frame-pointer %s: %s CFI unwinding was over its budget (per sample %d, per process %d, for the run %d, out of time %d; the causes table names the files)",
          b.over, b.over == 1 and "sample" or "samples", b.over == 1 and "its" or "their",
          b.over == 1 and "stack" or "stacks", b.over == 1 and "its" or "their",
          by.sample or 0, by.process or 0, by.run or 0, by.time or 0))
      end
    end
    -- why stacks are broken or frames unknown, by cause, with what to do about each
    local causes = d.unknown_causes or {}
    if #causes > 0 then
      rows = {}
      for i, c in ipairs(causes) do
        if i > args.top then break end
        rows[#rows + 1] = { c.cause, c.where, c.count, fmt.pct(100 * c.count / total), c.remedy }
      end
      ctx:table { traced = why, title = "Why stacks are incomplete or frames [unknown], by cause (samples; the remedy for each)",
                  columns = { "cause", "where", "samples", "of busy", "remedy" }, rows = rows }
    end
    if broken_pct >= 20 then
      -- the remedy of the biggest cause of broken stacks, else the generic one (older bundles)
      local fix = d.broken.fix
      for _, c in ipairs(causes) do
        if c.cause ~= "stripped" and c.cause ~= "interpreter_without_perf_map" then fix = c.remedy break end
      end
      ctx:next(string.format("%.0f%% of the samples have broken user stacks: %s", broken_pct, fix))
    end
    -- lost in the stack map, less the user stacks the unwinding of their copies gave back
    local recovered = d.lost and d.lost.user_stack_recovered or 0
    if (d.lost_samples or 0) > 0 then
      ctx:note(string.format("%d %s (stack map full or colliding: kernel %d, user %d%s; counts map full %d)",
        d.lost_samples, d.lost_samples == 1 and "sample lost its stack" or "samples lost their stack",
        d.lost.kernel_stack, d.lost.user_stack - recovered,
        recovered > 0 and string.format(" after %d recovered from their stack copies", recovered) or "",
        d.lost.counts_full))
    elseif recovered > 0 then
      ctx:note(string.format("%d user %s lost in the stack map (a collision) came back from the CFI unwinding of %s stack %s",
        recovered, recovered == 1 and "stack" or "stacks", recovered == 1 and "its" or "their",
        recovered == 1 and "copy" or "copies"))
    end
    -- the hottest named function ([unknown] stays in the tables, where it is counted)
    local leaf
    for _, e in ipairs(top_of(self, 5)) do
      if e.name ~= "[unknown]" then leaf = e break end
    end
    ctx:summary(string.format("%d on-CPU samples at %d Hz on %d CPUs; busiest process %s (pid %d) with %s of them; hottest function %s (%s self)",
      total, d.frequency_hz, d.cpus, top and top.comm or "?", top and top.tgid or 0,
      fmt.pct(100 * (top and top.count or 0) / total), leaf and leaf.name or "?",
      fmt.pct(100 * (leaf and leaf.value or 0) / total)))
  end,
}

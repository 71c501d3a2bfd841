--- File descriptors running out: the host's file table (file-nr against file-max) and each
-- process against its open-file limit (RLIMIT_NOFILE), by their trend over the window; the time
-- until the table or the limit is full, and who opens them.
--
-- Across runs: the host's file table (metric fds_allocated, instance "host") continues over the
-- earlier audits of this host in --out (ctx.history) of this boot only: a reboot empties the
-- table, so an audit of another boot is left out, named. A process's fds are not carried across
-- runs: a pid does not survive its process.
local runout = require("runout")
local trend = require("trend")
local fmt = require("fmt")

return {
  id = "use.fd-runout",
  title = "File descriptors running out",
  methodology = "use", resource = "fd", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.filenr", "proc.pids", "history" },
  args = runout.args(),

  run = function(ctx, args)
    local cands, host, long = {}, nil, nil
    local fnr, why = ctx.proc.filenr()
    if fnr and fnr:last("max") then
      local max = fnr:last("max")
      -- file-max is LONG_MAX on some kernels: no table to fill
      if max > 0 and max < 2 ^ 62 then
        local ts, ys = trend.points(fnr, "allocated")
        host = runout.assess(ctx, { name = "host file table", instance = "host", ts = ts, ys = ys,
          capacity = max, unit = "", verb = "full" }, args)
        cands[1] = host
        if #ys > 0 then ctx:metric("fds_allocated", ys[#ys], { instance = "host", over = ys, agg = "last", node_exporter = "node_filefd_allocated" }) end
        local hist = ctx.history("fds_allocated")
        long = runout.across(host, hist and hist.host, { reset_at_boot = true })
        if long then cands[2] = runout.assess(ctx, long, args) end
      else
        ctx:note("fs.file-max is unlimited: the host's file table cannot run out")
      end
    else
      ctx:unknown("time_left_s", why or "file-nr reports no maximum")
    end
    local procs, _, levels = runout.task_series(ctx, "fds")
    if levels and not levels.fds_counted then ctx:note(levels.fds_reason) end
    local growers, unlimited = {}, 0
    for _, e in ipairs(procs) do
      local limit = e.task.nofile_soft
      local c = { name = fmt.task(e.task) .. " fds", instance = fmt.task(e.task), ts = e.ts, ys = e.ys,
                  unit = "", task = e.task }
      if limit and limit < math.huge then
        c.capacity = limit
      else
        c.capacity = nil
        unlimited = unlimited + 1
      end
      runout.assess(ctx, c, args)
      if c.fit and c.fit.real then growers[#growers + 1] = { task = e.task, rate = c.fit.slope } end
      cands[#cands + 1] = c
    end
    if unlimited > 0 then
      ctx:note(string.format("%d processes whose fds moved have no limit read (limits are read for those with 16 "
        .. "or more open fds at the end, or the limit is unlimited)", unlimited))
    end
    local out = runout.report(ctx, cands, args, "File descriptors: level, trend and time until the limit")
    if host then
      runout.audits(ctx, { host })
      runout.across_notes(ctx, { host, long })
    end
    if #out == 0 then
      ctx:summary(string.format("no file descriptor table is filling (%d %s fds moved, none steadily toward "
        .. "a limit)", #procs, #procs == 1 and "process's" or "processes'"))
      return
    end
    local worst = out[1]
    local sentence
    if worst.task then
      runout.blame_self(ctx, worst)
      sentence = string.format("%s opens fds at %s: it reaches its open-file limit (%s) %s", fmt.task(worst.task),
        runout.rate(worst.ex.rate, ""), fmt.num(worst.capacity), trend.when(worst.ex))
      ctx:next("what it keeps open: ls -l /proc/" .. worst.task.pid .. "/fd | awk '{print $NF}' | sort | uniq -c | sort -n")
    elseif worst.long then
      sentence = runout.grew_sentence(worst)
      local who = runout.who(runout.blame(ctx, growers, 0, 3))
      if who then sentence = sentence .. "; opening now: " .. who end
    else
      sentence = runout.say(ctx, worst, growers, "exhausted", "opening")
    end
    ctx:summary(sentence)
  end,
}

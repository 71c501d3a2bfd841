--- Listen queues: each TCP listener's accept queue against its backlog, by its trend over the
-- window; a full queue drops connections (ListenOverflows). Names the socket, the process that
-- owns it, its backlog and how fast it accepts.
local runout = require("runout")
local trend = require("trend")
local fmt = require("fmt")

return {
  id = "use.network-listen",
  title = "Listen queues",
  methodology = "use", resource = "network", metric = "saturation",
  tags = { "default", "proc" },
  collect = { "net.sockets", "proc.snmp", "proc.pids" },
  args = runout.args({
    warn_overflows = { type = "number", default = 1, help = "listen overflows (connections dropped) in the window that warn" },
  }),

  run = function(ctx, args)
    local snmp = ctx.proc.snmp()
    local overflows = snmp and (snmp:delta("TcpExt.ListenOverflows") or 0) or nil
    local drops = snmp and (snmp:delta("TcpExt.ListenDrops") or 0) or nil
    local overflows_st = "ok"
    if overflows then
      overflows_st = ctx:metric("listen_overflows", overflows, { warn = args.warn_overflows, agg = "total", node_exporter = "node_netstat_TcpExt_ListenOverflows" })
      ctx:metric("listen_drops", drops, { agg = "total", node_exporter = "node_netstat_TcpExt_ListenDrops" })
    end
    local list, why = ctx.proc.listeners()
    if not list then
      ctx:unknown("time_left_s", why)
      if (overflows or 0) > 0 then
        ctx:summary(string.format("%d connections dropped by full listen queues; which listener is unknown: %s",
          overflows, why))
      end
      return
    end
    local by_pid = {}
    for _, t in ipairs(ctx.proc.tasks() or {}) do by_pid[t.pid] = t end
    local cands = {}
    for _, l in ipairs(list) do
      local backlog = l.series:last("backlog")
      local qmax = l.series:max("queue")
      if backlog and backlog > 0 then
        ctx:metric("queue_pct", 100 * qmax / backlog, { unit = "%", instance = l.name, agg = "peak" })
        local ts, ys = trend.points(l.series, "queue")
        local c = runout.assess(ctx, { name = "listener " .. l.name, instance = l.name, ts = ts, ys = ys,
          capacity = backlog, unit = "", listener = l }, args)
        -- full now: the next completed handshake is dropped (the kernel queues backlog + 1)
        if qmax >= backlog then
          c.ex = { seconds = 0, lo = 0, hi = 0, rate = c.fit and c.fit.slope or 0, headroom = 0 }
        end
        cands[#cands + 1] = c
      end
    end
    if list.cut then ctx:note("more listeners than sonde lists per round (1024): the rest were not seen") end
    local out = runout.report(ctx, cands, args, "Listeners: accept queue, trend and time until full")
    local rows = {}
    for _, c in ipairs(cands) do
      local l = c.listener
      if c.ex or l.accepts or l.owner then
        local owner = l.owner and by_pid[l.owner.pid]
        local acc = "-"
        if l.accepts and #l.accepts >= 2 then
          local n = 0
          for _, a in ipairs(l.accepts) do n = n + (a.new or 0) end
          acc = string.format("%.1f/s or more", n / math.max(l.accepts:seconds(), 1e-3))
        end
        rows[#rows + 1] = { l.name, owner and fmt.task(owner) or (l.owner and ("pid " .. l.owner.pid) or "?"),
          fmt.num(l.series:max("queue")), fmt.num(l.series:last("backlog")), acc }
        c.owner_task, c.accept_rate = owner, acc
      end
    end
    if #rows > 0 then
      ctx:table { title = "Listeners whose queue filled (accepts counted from the round after)",
                  columns = { "listener", "owner", "queue (max)", "backlog", "accepted" }, rows = rows }
    end
    if #out == 0 then
      if overflows_st ~= "ok" then
        ctx:summary(string.format("%d connections dropped by full listen queues (ListenOverflows), though no "
          .. "listener's queue was seen full at the samples: bursts between them", overflows))
      else
        ctx:summary(string.format("no listen queue is filling (%s)", fmt.count(#list, "listener")))
      end
      return
    end
    local worst = out[1]
    local l = worst.listener
    local sentence
    if worst.ex.seconds <= 0 then
      sentence = string.format("listener %s is overflowing: its accept queue is full (%s of a backlog of %s)",
        l.name, fmt.num(l.series:max("queue")), fmt.num(l.series:last("backlog")))
      if (overflows or 0) > 0 then
        sentence = sentence .. string.format(", %d listen overflows in the window (handshakes dropped, host-wide)", overflows)
      end
    else
      sentence = runout.sentence(worst, "full")
    end
    if worst.owner_task then
      ctx:culprit { pid = worst.owner_task.pid, comm = worst.owner_task.comm, cmdline = worst.owner_task.cmdline, share = 1 }
      sentence = sentence .. "; owner: " .. fmt.task(worst.owner_task)
      if worst.accept_rate ~= "-" then sentence = sentence .. ", accepting " .. worst.accept_rate end
      ctx:next("why " .. fmt.task(worst.owner_task) .. " accepts slowly: its threads' states in /proc/"
        .. worst.owner_task.pid .. "/task/*/stat; a larger backlog (listen(2) and net.core.somaxconn) only buys time")
    elseif list.owner_walk and list.owner_walk.cut then
      sentence = sentence .. "; its owner was not found within the walk's budget"
    end
    ctx:summary(sentence)
  end,
}
